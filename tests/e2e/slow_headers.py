#!/usr/bin/env python3
"""slow_headers.py - the slow-headers attack on a server (test_live_guard.sh).

    slow_headers.py HOST PORT N WAIT

Opens N connections to HOST:PORT from one address, each sending the start
of a request (its request line and one header, never the blank line that
ends the headers), and watches which ones the server closes (EOF or a
reset), for at most WAIT seconds in all.  Prints one JSON object:
  held       how many were still open when the server had first closed
             enough of them to keep at most its per-client limit (null if
             it never did): the connections it lets one client hold
  left_open  how many were still open at the end (0: the server closed the
             incomplete ones once idle)
Exits 1 if a connection could not be opened.

Design.  Only the server's doing is observed: nothing is sent after the
first bytes, and each socket is polled for readability (a closed one
reads as EOF); the waits are bounded, and what is reported does not
depend on how fast the machine is, only on what the server closed.
"""
import json
import select
import socket
import sys
import time

LIMIT = 16  # the per-client limit the live view announces (README.md)


def closed(s):
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except BlockingIOError:
        return False


def watch(socks, deadline, enough):
    """Polls until `enough(open sockets)` holds or the deadline passes."""
    while time.time() < deadline:
        live = [s for s in socks if s.fileno() >= 0]
        if enough(live):
            return live
        r, _, _ = select.select(live, [], [], 0.05) if live else ([], 0, 0)
        for s in r:
            if closed(s):
                s.close()
    return [s for s in socks if s.fileno() >= 0]


def main():
    host, port, n, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=10)
        s.setblocking(False)
        try:
            s.send(b"GET /events.json HTTP/1.1\r\nHost: %s:%d\r\n" % (host.encode(), port))
        except (ConnectionResetError, BrokenPipeError):
            pass
        socks.append(s)
    deadline = time.time() + wait
    live = watch(socks, deadline, lambda live: len(live) <= LIMIT)
    held = len(live) if len(live) <= LIMIT else None
    live = watch(socks, deadline, lambda live: not live)
    for s in live:
        s.close()
    print(json.dumps({"opened": n, "held": held, "left_open": len(live)}))


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        print("cannot connect: %s" % e)
        sys.exit(1)
