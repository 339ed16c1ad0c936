#!/usr/bin/env python3
"""doctest.py - every example block of README.md, man/pangaea.1 and
man/pangaea.3, run or held to the command-line table.

    doctest.py ROOT WORKDIR [FILE:LINE...]

Design.  A block is an indented block in README.md (four spaces or more
after a blank line) or a .nf/.fi block in a man page.  Each one carries a
marker just before it, which says how it is checked:
README.md `<!-- doctest: KIND ARGS -->`, a man page `.\\" doctest: KIND ARGS`.
A block without a marker fails the test, so a new example is either run or
says why not.  KINDs:

  usage        the usage lines, generated from the table and checked by
               cli_contract.py
  synopsis     every `pangaea` line names only modes and options of the
               table (read from `pangaea -help`)
  transcript   `$ COMMAND` lines are run, one after another, in a fresh
               directory; the lines under a command are what it shows:
               each must come, in order, on its stdout or its stderr
               (other lines may come between); `(...)` in a line stands
               for anything, `...` alone for any lines
  run          each line is a command (a `# comment` after it is
               ignored); they run one after another in a fresh directory
  output       the block is what the last of the marker's commands
               (cmd="..." each) shows, as in a transcript
  c            a C program: built against include/ and build/ and run
               under `pangaea -none`
  header FILE  C declarations: each function is declared in FILE
  covered FILE... the example needs what this machine cannot give (hosts,
               root, a network); the FILEs, tests that run it, must name
               every option of the block
  skip REASON  not run here: REASON is printed with it

ARGS of transcript and run: exits=A,B,... the exit status of each command
(default 0); for run, cmd="..." commands run before the block's and
sub=FROM=>TO placeholders of the block replaced (`[LOGDIR]` by nothing); skip=WORD,... commands starting with WORD are not run (scp to
a colleague); link=NAME:PATH puts build/PATH in the directory as NAME
(`./sor`, `./prog`); env=K=V.  Outputs are compared after the directory
and the build tree's paths are cut from them (an absolute path prints as
the README's relative one).  Figures are held loosely, as a rerun
gives them: a number before "s" (seconds) may be any, one before "bytes"
or "%" within a quarter of the one shown; other numbers exactly.  Commands find `pangaea` and the test
programs in PATH (build/, build/tests/).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 300


def readme_blocks(path):
    lines = open(path).read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].startswith("    ") and i > 0 and not lines[i - 1].strip():
            start = i
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or
                                      (not lines[i].strip() and i + 1 < len(lines)
                                       and lines[i + 1].startswith("    "))):
                body.append(lines[i])
                i += 1
            indent = min(len(l) - len(l.lstrip()) for l in body if l.strip())
            marker = None
            j = start - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            m = re.match(r"<!-- doctest: (.*?) -->$", lines[j].strip()) if j >= 0 else None
            if m:
                marker = m.group(1)
            blocks.append((path, start + 1, marker,
                           [l[indent:] for l in body]))
        else:
            i += 1
    return blocks


def man_blocks(path):
    lines = open(path).read().split("\n")
    blocks = []
    for i, l in enumerate(lines):
        if l == ".nf":
            end = lines.index(".fi", i)
            marker = None
            k = i - 1
            while k >= 0 and lines[k].startswith('.\\"') and "doctest:" not in lines[k]:
                k -= 1
            m = re.match(r'\.\\" doctest: (.*)$', lines[k]) if k >= 0 else None
            if m:
                marker = m.group(1)
            body = [re.sub(r"\\(.)", r"\1", x).replace("\\e", "\\")
                    for x in lines[i + 1:end]]
            body = [x.replace("\\-", "-") for x in body]
            body = [re.sub(r"^\.(B|I|BR|IR) ", "", x) for x in body]
            blocks.append((path, i + 1, marker, body))
    return blocks


def parse_args(spec):
    kind, _, rest = spec.partition(" ")
    args = {"exits": None, "links": [], "env": {}, "rest": rest,
            "skip": [], "cmds": [], "subs": []}
    if kind in ("transcript", "run", "output"):
        for tok in shlex.split(rest):
            k, _, v = tok.partition("=")
            if k == "exits":
                args["exits"] = [int(x) for x in v.split(",")]
            elif k == "link":
                args["links"].append(v.split(":", 1))
            elif k == "skip":
                args["skip"] = v.split(",")
            elif k == "cmd":
                args["cmds"].append(v)
            elif k == "sub":
                args["subs"].append(v.split("=>", 1))
            elif k == "env":
                ek, _, ev = v.partition("=")
                args["env"][ek] = ev
    return kind, args


class Ctx:
    def __init__(self, root, work):
        self.root, self.work = root, work
        self.build = os.path.join(root, "build")
        self.flags = None

    def table_flags(self):
        if self.flags is None:
            out = subprocess.run([os.path.join(self.build, "pangaea"), "-help"],
                                 capture_output=True, text=True).stdout
            self.flags = set(re.findall(r"(?:^|[\s\[|])(--?[a-z][a-z-]*)", out))
        return self.flags

    def fresh_dir(self, args):
        d = tempfile.mkdtemp(dir=self.work)
        for name, target in args["links"]:
            os.symlink(os.path.join(self.build, target), os.path.join(d, name))
        env = dict(os.environ)
        env["PATH"] = "%s:%s:%s" % (self.build, os.path.join(self.build, "tests"),
                                    env.get("PATH", ""))
        env.update(args["env"])
        return d, env

    def normal(self, text, d):
        """Paths cut as the README writes them."""
        real = os.path.realpath(d)
        for p in (real + "/", d + "/", os.path.join(self.build, "tests") + "/",
                  self.build + "/"):
            text = text.replace(p, "")
        return text.replace(real, ".").replace(d, ".")


def strip_comment(line):
    """A command without its `# comment` (a # inside quotes stays)."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=False)
        lex.commenters = "#"
        lex.whitespace_split = True
        list(lex)
    except ValueError:
        return line
    m = re.search(r"\s+#\s.*$", line)
    return line[:m.start()] if m else line


NUM = r"(-?[0-9]+(?:\.[0-9]+)?)"


def expect_re(line):
    """A regexp for a shown line, and the figures it shows: (value, unit)."""
    if line.strip() == "...":
        return None, []
    figures = []
    out = ""
    for k, part in enumerate(line.split("(...)")):
        if k:
            out += ".*"
        pos = 0
        for m in re.finditer(r"(?<![\w.])[0-9]+(?:\.[0-9]+)?(?![\w.])", part):
            out += re.escape(part[pos:m.start()]) + NUM
            unit = re.match(r"\s*(?:->\s*[0-9.]+\s*)?(s\b|bytes\b|%)",
                            part[m.end():])
            figures.append((float(m.group(0)), unit.group(1) if unit else ""))
            pos = m.end()
        out += re.escape(part[pos:])
    return re.compile("^" + out + "$"), figures


def figures_agree(figures, m):
    for (want, unit), got in zip(figures, m.groups()):
        got = float(got)
        if unit == "s":
            continue
        if unit in ("bytes", "%"):
            if abs(got - want) > 0.25 * max(abs(want), 1):
                return False
        elif got != want:
            return False
    return True


def match_shown(shown, out, err):
    """Each shown line in order on stdout or stderr: None, or the first one
    not found."""
    cur = {"out": 0, "err": 0}
    streams = {"out": out.split("\n"), "err": err.split("\n")}
    for line in shown:
        rx, figures = expect_re(line)
        if rx is None:
            continue
        for s in ("out", "err"):
            lines = streams[s]
            k = next((k for k in range(cur[s], len(lines))
                      if rx.match(lines[k].rstrip()) and
                      figures_agree(figures, rx.match(lines[k].rstrip()))),
                     None)
            if k is not None:
                cur[s] = k + 1
                break
        else:
            return line
    return None


def run_cmd(ctx, cmd, d, env):
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env,
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % TIMEOUT
    return p.returncode, ctx.normal(p.stdout, d), ctx.normal(p.stderr, d)


def check_commands(ctx, steps, args):
    """steps: (command, shown lines).  None, or why it failed."""
    d, env = ctx.fresh_dir(args)
    exits = args["exits"] or [0] * len(steps)
    if len(exits) != len(steps):
        return "exits= names %d statuses for %d commands" % (len(exits), len(steps))
    for (cmd, shown), want in zip(steps, exits):
        if cmd.split() and cmd.split()[0] in args["skip"]:
            continue
        rc, out, err = run_cmd(ctx, cmd, d, env)
        if rc != want:
            return "`%s` exited %d, not %d; stderr:\n%s" % (cmd, rc, want, err[-2000:])
        missing = match_shown(shown, out, err)
        if missing is not None:
            return ("`%s` did not show (in order) the line:\n  %s\nstdout:\n%s\n"
                    "stderr:\n%s" % (cmd, missing, out[-3000:], err[-3000:]))
    shutil.rmtree(d, ignore_errors=True)
    return None


def transcript(ctx, body, args):
    steps = []
    for l in body:
        if l.startswith("$ "):
            steps.append((l[2:], []))
        elif steps:
            steps[-1][1].append(l)
    if not steps:
        return "a transcript without a `$ ` command"
    return check_commands(ctx, steps, args)


def output(ctx, body, args):
    if not args["cmds"]:
        return "an output block without cmd= in its marker"
    steps = [(c, []) for c in args["cmds"]]
    steps[-1] = (steps[-1][0], [l.rstrip() for l in body])
    return check_commands(ctx, steps, args)


def commands_of(body):
    return [strip_comment(l).strip() for l in body
            if strip_comment(l).strip() and not l.lstrip().startswith("#")]


def run_block(ctx, body, args):
    """The marker's cmd= first (what the block needs done before it), then
    the block's commands, its placeholders replaced (sub=FROM=>TO)."""
    cmds = commands_of(body)
    for a, b in args["subs"]:
        cmds = [c.replace(a, b) for c in cmds]
    return check_commands(ctx, [(c, []) for c in args["cmds"] + cmds], args)


def synopsis(ctx, body, args):
    flags = ctx.table_flags()
    for l in body:
        c = strip_comment(l).strip()
        if not c.startswith("pangaea"):
            continue
        for f in re.findall(r"(?:^|[\s\[|])(--?[a-z][a-z-]*)", c):
            if f not in flags:
                return "%s is not in the command-line table: %s" % (f, c)
    return None


def c_program(ctx, body, args):
    d, env = ctx.fresh_dir(args)
    src = os.path.join(d, "example.c")
    open(src, "w").write("\n".join(body) + "\n")
    cc = subprocess.run(["cc", "-I" + os.path.join(ctx.root, "include"), "-o",
                         os.path.join(d, "example"), src, "-L" + ctx.build,
                         "-Wl,-rpath," + ctx.build, "-lpangaea", "-lpvm3"],
                        capture_output=True, text=True)
    if cc.returncode:
        return "does not build:\n" + cc.stderr
    rc, out, err = run_cmd(ctx, "pangaea -none ./example", d, env)
    if rc:
        return "pangaea -none ./example exited %d:\n%s" % (rc, err)
    shutil.rmtree(d, ignore_errors=True)
    return None


def covered(ctx, body, args):
    """The test named runs what the block shows: it names every option of
    the block's pangaea commands."""
    text = ""
    for name in args["rest"].split():
        test = os.path.join(ctx.root, name)
        if not os.path.exists(test):
            return "%s does not exist" % test
        text += open(test).read()
    for c in commands_of(body):
        for w in re.findall(r"(?:^|\s)(--?[a-z][a-z0-9-]*)", c):
            if w not in text:
                return "%s do not name %s (of `%s`)" % (args["rest"], w, c)
    return None


def header(ctx, body, args):
    """Declarations: every function named is declared in FILE."""
    path = os.path.join(ctx.root, args["rest"].split()[0])
    text = open(path).read()
    for name in re.findall(r"([a-z_][a-z0-9_]*)\(", "\n".join(body)):
        if not re.search(r"\b%s\(" % name, text):
            return "%s does not declare %s" % (path, name)
    return None


KINDS = {"header": header, "transcript": transcript, "run": run_block, "synopsis": synopsis,
         "output": output,
         "c": c_program, "covered": covered,
         "usage": lambda ctx, body, args: None}


def main():
    root, work = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    ctx = Ctx(root, work)
    blocks = readme_blocks(os.path.join(root, "README.md"))
    for man in ("man/pangaea.1", "man/pangaea.3"):
        blocks += man_blocks(os.path.join(root, man))
    failed = ran = held = notrun = 0
    for path, line, marker, body in blocks:
        where = "%s:%d" % (os.path.relpath(path, root), line)
        if only and where not in only:
            continue
        if marker is None:
            print("FAIL: %s: an example block without a doctest marker:\n  %s"
                  % (where, body[0]))
            failed += 1
            continue
        kind, args = parse_args(marker)
        if kind == "skip":
            print("NOT RUN: %s: %s" % (where, args["rest"]))
            notrun += 1
            continue
        if kind not in KINDS:
            print("FAIL: %s: unknown doctest kind %s" % (where, kind))
            failed += 1
            continue
        why = KINDS[kind](ctx, body, args)
        if why:
            print("FAIL: %s (%s): %s" % (where, kind, why))
            failed += 1
        else:
            print("PASS: %s (%s)" % (where, kind))
            if kind in ("transcript", "run", "c", "output"):
                ran += 1
            else:
                held += 1
    print("doctest: %d blocks run, %d held to the table or a test, %d not run, "
          "%d failed" % (ran, held, notrun, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
