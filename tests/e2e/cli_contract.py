#!/usr/bin/env python3
"""cli_contract.py - README.md and man/pangaea.1 held to the command-line
table (src/cli/main/options.def), as `pangaea -help` prints it.

    cli_contract.py PANGAEA ROOT          check; exit 1 and what differs
    cli_contract.py PANGAEA ROOT --write  rewrite the generated parts

Design.  The table is read through `pangaea -help`, its one printer, so no
second parser of options.def exists.  Two parts are generated (--write)
and checked to be what the generator gives: the man page's SYNOPSIS and
README.md's usage block (the first indented block under "## Usage"), both
the usage lines of -help.  The rest is written by hand and checked against
the table: every mode and option has an entry (.TP) in the man page's
MODES or OPTIONS and no entry names an option the table lacks; EXIT STATUS
lists the table's statuses; ENVIRONMENT names exactly the table's
variables; README.md names every option, status and variable.
"""
import re
import subprocess
import sys

ALIASES = {"--help", "-h", "--version"}  # spellings of -help, -version


def help_sections(pangaea):
    out = subprocess.run([pangaea, "-help"], capture_output=True, text=True,
                         check=True).stdout
    parts = out.split("\n\n")
    sec = {"usage": parts[0]}
    for p in parts[1:]:
        head, _, body = p.partition("\n")
        sec[head.split(" ")[0].rstrip(":")] = body
    return sec


def usage_lines(sec):
    """The usage as -help prints it, without "usage: "."""
    lines = sec["usage"].split("\n")
    return [l[len("usage: "):] if l.startswith("usage: ") else l[7:]
            for l in lines]


def entries(text_lines):
    """Synopsis entries, whitespace collapsed: each starts at "pangaea"."""
    out = []
    for l in text_lines:
        l = l.strip()
        if l.startswith("pangaea "):
            out.append(l)
        elif out and l:
            out[-1] += " " + l
    return [" ".join(e.split()) for e in out]


def first_words(body, indent):
    """The first word of each entry line of a -help section."""
    return [l.split()[0] for l in body.split("\n")
            if l.startswith(" " * indent) and not l.startswith(" " * (indent + 2))
            and l.strip()]


def man_section(man, name):
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH )" % re.escape(name), man,
                  re.S | re.M)
    return m.group(1) if m else ""


def tp_tags(section):
    """The tag line after each .TP, fonts and escapes removed."""
    tags = []
    lines = section.split("\n")
    for i, l in enumerate(lines):
        if l == ".TP" and i + 1 < len(lines):
            t = re.sub(r"^\.(B|I|BI|BR|IR|RB)\s+", "", lines[i + 1])
            t = re.sub(r"\\f[BIRP]", "", t).replace("\\-", "-").replace('"', "")
            tags.append(t.strip())
    return tags


def man_synopsis(lines):
    body = "\n".join(l.replace("-", "\\-") for l in lines)
    return (".\\\" doctest: usage (generated from src/cli/main/options.def by "
            "tests/e2e/cli_contract.py --write: do not edit)\n.nf\n"
            + body + "\n.fi\n")


def readme_usage_block(readme):
    m = re.search(r"^## Usage\n\n(?:<!-- doctest: usage -->\n\n)?((?:    .*\n)+)",
                  readme, re.M)
    return m


def main():
    pangaea, root = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv
    sec = help_sections(pangaea)
    usage = usage_lines(sec)
    modes = first_words(sec["modes"], 2)
    options = first_words(sec["options"], 2)
    statuses = [w for w in first_words(sec["exit"], 2) if w != "other"]
    envs = first_words(sec["environment"], 2)
    man_path, readme_path = root + "/man/pangaea.1", root + "/README.md"
    man, readme = open(man_path).read(), open(readme_path).read()
    bad = []

    # Generated: the man SYNOPSIS and the README usage block.
    syn = man_section(man, "SYNOPSIS")
    want_syn = man_synopsis(usage)
    m = readme_usage_block(readme)
    want_block = "".join("    " + l + "\n" for l in usage)
    if write:
        man = man.replace(".SH SYNOPSIS\n" + syn, ".SH SYNOPSIS\n" + want_syn)
        open(man_path, "w").write(man)
        if m:
            readme = readme[:m.start(1)] + want_block + readme[m.end(1):]
            open(readme_path, "w").write(readme)
        return 0
    if syn != want_syn:
        bad.append("man/pangaea.1 SYNOPSIS is not the usage of -help "
                   "(run tests/e2e/cli_contract.py build/pangaea . --write)")
    if not m or entries(m.group(1).split("\n")) != entries(usage):
        bad.append("README.md's usage block is not the usage of -help "
                   "(run tests/e2e/cli_contract.py build/pangaea . --write)")

    # Held by hand: the man page's entries.
    tags = tp_tags(man_section(man, "MODES")) + tp_tags(man_section(man, "OPTIONS"))
    flags_in_tags = set()
    for t in tags:
        flags_in_tags |= set(re.findall(r"(?:^|[\s,])(--?[a-z][a-z-]*)", t))
    for f in modes + options:
        if f not in flags_in_tags:
            bad.append("man/pangaea.1 has no MODES/OPTIONS entry for " + f)
    for f in sorted(flags_in_tags - set(modes) - set(options) - ALIASES):
        bad.append("man/pangaea.1 has an entry for %s, which the table "
                   "(-help) lacks" % f)
    exit_tags = tp_tags(man_section(man, "EXIT STATUS"))
    if sorted(exit_tags) != sorted(statuses):
        bad.append("man/pangaea.1 EXIT STATUS lists %s; the table %s"
                   % (exit_tags, statuses))
    env_tags = []
    for t in tp_tags(man_section(man, "ENVIRONMENT")):
        env_tags += [e.strip() for e in t.split(",")]
    if sorted(env_tags) != sorted(envs):
        bad.append("man/pangaea.1 ENVIRONMENT names %s; the table %s"
                   % (sorted(env_tags), sorted(envs)))

    # README.md names every option, status and variable.
    for f in modes + options:
        if not re.search(r"(^|[^a-z-])%s([^a-z-]|$)" % re.escape(f), readme,
                         re.M):
            bad.append("README.md never names " + f)
    exits = re.search(r"^- Exit status:(.*?)(?=^- |^#)", readme, re.S | re.M)
    for s in statuses:
        said = exits and (s + " (" in exits.group(1) or
                          ("+" in s and s in exits.group(1)))
        if s != "0" and not said:
            bad.append("README.md's exit status item lacks " + s)
    for e in envs:
        if e not in readme:
            bad.append("README.md never names " + e)

    for b in bad:
        print("FAIL: " + b)
    print("cli_contract: %d modes, %d options, %d statuses, %d variables; "
          "%d differences" % (len(modes), len(options), len(statuses),
                              len(envs), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
