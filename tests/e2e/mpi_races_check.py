#!/usr/bin/env python3
"""mpi_races_check.py [--older] PANGAEA LOGDIR - checks `pangaea -races -json` and
`pangaea -min` of a recording of tests/programs/mpi_master.c,
mpi_wild.c, mpi_persist.c, mpi_f08master.f90 or mpi_ctx.c against the
race set derived by hand from the master's (ltid 1's) log.  Exits 0 and
prints a summary when the
reports are exactly right, else 1 and says what differs.

What these programs share, and the rule it gives.  The master takes
every message its workers send (the workers receive only from it, naming
it: they race nowhere).  The master's work is in phases; in each phase
every worker sends it exactly one message, the same count of its sends
(msgid) for every worker, and no receive of the master in the phase
causes a worker's send of that phase (a worker's next phase's messages
come after something the master does after the phase, or have another
tag, or both).  So at a receive of the master the messages it could
have taken are those of the phase of the message it took that its
filter admits, that are on its communicator (the events' ctx, format 7:
a receive never takes another communicator's message; a message's ctx
is that of the receive that took it) and that no earlier receive took;
a probe (MPI_Iprobe)
takes none; a run of failed polls of receives (a <poll> of MPI_Irecv or
MPI_Iprobe) could have found those of the phase of the receive after it.
A completion of an MPI_Irecv by MPI_Waitany, Testany, Waitsome or
Testsome names the call's other receives still pending (rivals=, format
8): the messages those rivals took later in the phase are its candidates
too (MPI could have completed one of them first), one a sender.
A receive races with two such messages or more, a poll with one or more
(src/cli/analysis/races_find.c).  A failed test of a send (MPI_Test,
MPI_Testany over sends, MPI_Request_get_status of a send) takes no
message: it is no race, and its log has no <poll> for it, only the count
among the next event's misses.  -races counts a receive for each receive
event of any rank and each receive's <poll>; `pangaea -min` (run on a
copy) must count the same receives and races.  --older: a recording
made before send's tests left the log's <poll>s (a <poll> of call
MPI_Isend): such a <poll> must be no race and no receive either."""
import glob
import json
import races_json
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def fail(why):
    print("mpi_races_check: " + why)
    sys.exit(1)


def dump(pangaea, logdir, ltid):
    out = subprocess.run([pangaea, "-dump", logdir, str(ltid)], check=True,
                         capture_output=True, text=True).stdout
    return [e for e in ET.fromstring(out) if e.tag in ("recv", "poll", "send", "query", "end")]


def admits(asked_from, asked_tag, ltid, tag):
    return asked_from in (-1, ltid) and asked_tag in (-1, tag)


def poll_filter(after, phase):
    """What a failed test of the phase's pending receives asked for: one
    source (tag) if they all name it, else any.  The programs test all of
    a phase's pending requests at once (MPI_Testany, MPI_Testall,
    MPI_Testsome), or its one wildcard request (MPI_Test,
    MPI_Request_get_status): those the phase's completions after it."""
    pend = [(int(x.get("asked_from")), int(x.get("asked_tag"))) for x in after
            if x.tag == "recv" and x.get("call") == "MPI_Irecv" and int(x.get("msgid")) == phase]
    froms, tags = {f for f, _ in pend}, {t for _, t in pend}
    return (froms.pop() if len(froms) == 1 else -1, tags.pop() if len(tags) == 1 else -1)


def rival_messages(e, after, phase, cand):
    """What the rivals of completion e (format 8) took later in its
    phase, one a sender (not a sender already among the candidates)."""
    rivals = {int(r) for r in e.get("rivals").split()}
    senders = {m[0] for m in cand} | {int(e.get("from"))}
    out = set()
    for x in after:
        if x.tag == "recv" and x.get("call") == "MPI_Irecv" and \
                int(x.get("posted", "0")) in rivals and int(x.get("msgid")) == phase:
            m = (int(x.get("from")), int(x.get("msgid")))
            if m[0] not in senders:
                senders.add(m[0])
                out.add(m)
    return out


def expected(events, older):
    """The races of ltid 1, by the rule above: {seq: (took, alts)}."""
    recvs = [e for e in events if e.tag == "recv"]
    tag_of = {(int(e.get("from")), int(e.get("msgid"))): int(e.get("tag")) for e in recvs}
    ctx_of = {(int(e.get("from")), int(e.get("msgid"))): e.get("ctx", "0") for e in recvs}
    taken, races = set(), {}
    for i, e in enumerate(events):
        if e.tag == "poll" and e.get("call") == "MPI_Isend":
            if older:
                continue  # an older recording's: it takes nothing
            fail("ltid 1's log has a <poll> of a send's test (seq %s): a "
                 "send's test is no receive's poll" % e.get("seq"))
        if e.tag not in ("recv", "poll"):
            continue
        af, at = int(e.get("asked_from")), int(e.get("asked_tag"))
        if e.tag == "recv":
            took = (int(e.get("from")), int(e.get("msgid")))
        else:
            nxt = next((x for x in events[i + 1:] if x.tag == "recv"), None)
            if nxt is None:
                continue  # nothing after it to take: no candidate
            took = None
        phase = took[1] if took else int(nxt.get("msgid"))
        if e.tag == "poll" and e.get("call") == "MPI_Irecv" and \
                (at == -1 or at in tag_of.values()):  # (wild's cancelled
            # receive of tag 99 is tested alone: it admits no message)
            want = poll_filter(events[i + 1:], phase)
            if (af, at) != want:
                fail("the <poll> at seq %s asks for (%d, %d); the receives "
                     "it tested admit (%d, %d)" % (e.get("seq"), af, at, *want))
        ctx = e.get("ctx", "0") if e.tag == "recv" else None  # a poll's: any
        cand = {m for m, t in tag_of.items()
                if m[1] == phase and m not in taken and admits(af, at, m[0], t)
                and ctx in (None, ctx_of[m])}
        if e.tag == "recv" and e.get("rivals"):
            cand |= rival_messages(e, events[i + 1:], phase, cand)
        if len(cand) >= (2 if took else 1):
            races[int(e.get("seq"))] = (took, frozenset(cand - {took}))
        if took and e.get("call") != "MPI_Iprobe":
            taken.add(took)
    return races


def reported(rep):
    out = {}
    for r in rep["races"]:
        if r["ltid"] != 1:
            fail("a race at ltid %d (seq %d): the workers receive only from the master, named"
                 % (r["ltid"], r["seq"]))
        if r["conservative"]:
            fail("race at seq %d judged as if it took any source and tag (call %s)"
                 % (r["seq"], r["call"]))
        took = (r["took"]["ltid"], r["took"]["msgid"]) if r["took"] else None
        out[r["seq"]] = (took, frozenset((a["ltid"], a["msgid"]) for a in r["alternatives"]))
    return out


def receives(pangaea, logdir, nranks):
    n = 0
    for ltid in range(1, nranks + 1):
        n += sum(1 for e in dump(pangaea, logdir, ltid)
                 if e.tag == "recv" or (e.tag == "poll" and e.get("call") != "MPI_Isend"))
    return n


def check_min(pangaea, logdir, nrecv, nraces):
    with tempfile.TemporaryDirectory() as tmp:
        copy = tmp + "/rec"
        shutil.copytree(logdir, copy)
        err = subprocess.run([pangaea, "-min", copy], capture_output=True, text=True).stderr
    m = re.search(r"of (\d+) receives kept \((?:\d+ of them (?:a run|runs) of failed polls; )?(\d+) race", err)
    if not m:
        fail("pangaea -min said: " + err.strip())
    if (int(m.group(1)), int(m.group(2))) != (nrecv, nraces):
        fail("pangaea -min counts %s receives and %s races; -races %d and %d"
             % (m.group(1), m.group(2), nrecv, nraces))


def main():
    older = sys.argv[1] == "--older"
    if older:  # a recording made before the logs left out send's tests
        del sys.argv[1]
    pangaea, logdir = sys.argv[1], sys.argv[2]
    run = subprocess.run([pangaea, "-races", "-json", logdir], capture_output=True, text=True)
    if run.returncode not in (0, 1):  # 1: races found
        fail("pangaea -races -json %s: exit %d: %s" % (logdir, run.returncode, run.stderr.strip()))
    rep = races_json.decode(json.loads(run.stdout))
    want, got = expected(dump(pangaea, logdir, 1), older), reported(rep)
    for seq in sorted(set(want) | set(got)):
        if want.get(seq) != got.get(seq):
            fail("seq %d: expected %s, -races reports %s" % (seq, want.get(seq), got.get(seq)))
    nranks = len(glob.glob(logdir + "/ltid-*.comm.pgc"))
    nrecv = receives(pangaea, logdir, nranks)
    if rep["receives"] != nrecv:
        fail("-races examined %d receives; the logs hold %d receives and receives' polls"
             % (rep["receives"], nrecv))
    check_min(pangaea, logdir, nrecv, len(got))
    print("mpi_races_check: %d races (%d of failed polls) in %d receives, as derived"
          % (len(got), sum(1 for t, _ in got.values() if t is None), nrecv))


main()
