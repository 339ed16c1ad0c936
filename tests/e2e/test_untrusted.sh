#!/usr/bin/env bash
# test_untrusted.sh - a recording is untrusted input: replaying or viewing
# a crafted one never runs, reads, writes or deletes what it chooses
# (README, "What a recording can and cannot make Pangaea do").
#
# Design.  One real recording of a program built here with a #line
# directive that puts terminal escapes into its debug information (as a
# hostile program's would be), recorded with stdin given; then a copy of
# it crafted for each check, each asserting what must not happen and what
# the user is told:
#  1. hosts: a <child host="..."> holding a PVM host-file option line is
#     refused as no host name; a proper host name not in the virtual
#     machine is refused, naming it and -addhosts, and the pvmd never runs
#     its remote shell (a fake PVM_RSH that records whether it ran, in the
#     pvmd's environment); with -addhosts pvm_addhosts is tried.  On hosts
#     with network addresses, test_untrusted_hosts.sh.
#  2. files in a log directory: a symbolic link or FIFO planted as
#     -display's pangaea-graph.html.tmp or page, or as -whatif's
#     NEWDIR/whatif.plan, is refused by name and what it points to is
#     untouched; -live's clean-up of a stale .pangaea-live.* that is a
#     link deletes nothing it points to.
#  3. strings: -races and -dump print the escapes from the debug
#     information as \x1b, never as the byte, -tasks a C1 control in a
#     program name as \x9b; a site's module that is a FIFO does not hang
#     -dump, -tasks or -races.
#  4. a recorded cwd= other than the current directory is refused unless
#     -cwd recorded; a pangaea-stdin that is a link or a FIFO is refused.
#  6. the log directory is 0700 and every file pangaea and the tasks wrote
#     there 0600.
# Every check is bounded by timeout: a hang is a failure, not a stuck test.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
ESC=$(printf '\033')

# The fake remote shell: records that it ran, starts nothing.
cat >"$dir/rsh" <<EOF
#!/bin/sh
echo "\$*" >>"$dir/rsh.ran"
exit 1
EOF
chmod +x "$dir/rsh"
export PVM_RSH=$dir/rsh
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# The program: plain_race with escapes in its source file name.
{ printf '#line 1 "\\033]0;PWNED\\007evil.c"\n'; cat "$PG_ROOT/tests/programs/plain_race.c"; } >"$dir/evil.c"
if ! cc -g -O0 -o "$dir/evil" "$dir/evil.c" -lpvm3 2>"$dir/cc.err"; then
    pg_fail "cannot build the test program"; cat "$dir/cc.err"; pg_summary; exit 1
fi
mkdir "$dir/run" && cd "$dir/run" || exit 1
LOGS=$dir/logs
rc=0
echo "some input" | timeout 60 "$PANGAEA" -log -logdir "$LOGS" "$dir/evil" 2 5 >"$dir/rec.out" 2>"$dir/rec.err" || rc=$?
if [ "$rc" -ne 0 ] || [ ! -f "$LOGS/pangaea-stdin" ]; then
    pg_fail "the recording failed (exit $rc) or kept no stdin"; cat "$dir/rec.err"; pg_summary; exit 1
fi

# copy NAME: a fresh copy of the recording, its path printed.
copy() { rm -rf "${dir:?}/$1"; cp -a "$LOGS" "$dir/$1" && echo "$dir/$1"; }

# refused WHAT RC-FILE ERR-FILE REGEX: exit 2 and the message.
refused() {
    local what=$1 rc=$2 err=$3 re=$4
    if [ "$rc" -eq 2 ] && grep -Eq -- "$re" "$err"; then
        pg_pass "$what"
    else
        pg_fail "$what: exit $rc"; cat "$err"
    fi
}

# --- 6. permissions ---------------------------------------------------------
loose=$(find "$LOGS" -type f ! -perm 600 -printf '%m %f\n')
if [ "$(stat -c %a "$LOGS")" = 700 ] && [ -z "$loose" ] &&
   [ -n "$(find "$LOGS" -name 'ltid-1.comm.pgc' -perm 600)" ]; then
    pg_pass "the log directory is 0700, its logs, stdin and lock file 0600"
else
    pg_fail "permissions: directory $(stat -c %a "$LOGS"), files not 0600: $loose"
fi

# --- 1. hosts ---------------------------------------------------------------
L=$(copy host-opts)
sed -i "s|<child ltid=\"1\" host=\"[^\"]*\"|<child ltid=\"1\" host=\"127.0.0.1 dx=/usr/bin/touch\${IFS}$dir/pwned;\"|" "$L/ltid-0.exec.xml"
grep -q 'dx=/usr/bin/touch' "$L/ltid-0.exec.xml" || pg_fail "the host could not be crafted"
rc=0; timeout 60 "$PANGAEA" -replay -addhosts -logdir "$L" "$dir/evil" 2 5 >"$dir/h1.out" 2>"$dir/h1.err" </dev/null || rc=$?
refused "a host with PVM host-file options is refused as no host name (even with -addhosts)" "$rc" "$dir/h1.err" \
    'ltid-0.exec.xml runs ltid 1 on host "127.0.0.1 dx=/usr/bin/touch\$\{IFS\}.*not a host name'
if [ ! -e "$dir/pwned" ] && [ ! -e "$dir/rsh.ran" ]; then
    pg_pass "the crafted host ran nothing: no remote shell, no command"
else
    pg_fail "the crafted host ran: $(cat "$dir/rsh.ran" 2>/dev/null) $(ls "$dir/pwned" 2>/dev/null)"
fi
L=$(copy host-other)
sed -i 's|<child ltid="1" host="[^"]*"|<child ltid="1" host="hz.example"|' "$L/ltid-0.exec.xml"
rc=0; timeout 60 "$PANGAEA" -replay -logdir "$L" "$dir/evil" 2 5 >"$dir/h2.out" 2>"$dir/h2.err" </dev/null || rc=$?
refused "a host not in the virtual machine is named, with -addhosts, and not added" "$rc" "$dir/h2.err" \
    'host "hz.example" is not part of the virtual machine; .*ltid-0.exec.xml runs ltid 1 there.*-addhosts'
if [ ! -e "$dir/rsh.ran" ]; then
    pg_pass "without -addhosts the pvmd never ran its remote shell"
else
    pg_fail "the remote shell ran without -addhosts: $(cat "$dir/rsh.ran")"
fi
rc=0; timeout 120 "$PANGAEA" -replay -addhosts -logdir "$L" "$dir/evil" 2 5 >"$dir/h3.out" 2>"$dir/h3.err" </dev/null || rc=$?
# (This pvmd's master is on the loopback address, where PVM adds no host:
# test_untrusted_hosts.sh sees the remote shell run on network hosts.)
if [ "$rc" -eq 2 ] && grep -q 'host "hz.example" .*cannot be added (pvm_addhosts: ' "$dir/h3.err"; then
    pg_pass "with -addhosts pvm_addhosts is tried, and its failure named"
else
    pg_fail "-addhosts: exit $rc, remote shell: $(cat "$dir/rsh.ran" 2>/dev/null)"; cat "$dir/h3.err"
fi

# --- 2. files written or deleted in a log directory ------------------------
echo precious >"$dir/victim"
L=$(copy display-tmp)
ln -s "$dir/victim" "$L/pangaea-graph.html.tmp"
rc=0; timeout 60 "$PANGAEA" -display "$L" >"$dir/d1.out" 2>"$dir/d1.err" || rc=$?
if [ "$rc" -ne 0 ] && [ "$(cat "$dir/victim")" = precious ] &&
   grep -q "pangaea-graph.html.tmp is a symbolic link, not a regular file" "$dir/d1.err"; then
    pg_pass "-display: a link planted as pangaea-graph.html.tmp is refused by name, its target untouched"
else
    pg_fail "-display with a planted .tmp link: exit $rc, victim '$(head -c 40 "$dir/victim")'"; cat "$dir/d1.err"
fi
L=$(copy display-page)
ln -s "$dir/victim" "$L/pangaea-graph.html"
rc=0; timeout 60 "$PANGAEA" -display "$L" >"$dir/d2.out" 2>"$dir/d2.err" || rc=$?
if [ "$rc" -ne 0 ] && [ -L "$L/pangaea-graph.html" ] && [ "$(cat "$dir/victim")" = precious ] &&
   grep -q "pangaea-graph.html is a symbolic link" "$dir/d2.err"; then
    pg_pass "-display: a link planted as the page itself is refused, neither replaced nor followed"
else
    pg_fail "-display with a planted page link: exit $rc"; cat "$dir/d2.err"
fi
L=$(copy display-fifo)
mkfifo "$L/pangaea-graph.html.tmp"
rc=0; timeout 60 "$PANGAEA" -display "$L" >"$dir/d3.out" 2>"$dir/d3.err" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "pangaea-graph.html.tmp is a FIFO" "$dir/d3.err"; then
    pg_pass "-display: a FIFO planted as pangaea-graph.html.tmp is refused by name (no hang)"
else
    pg_fail "-display with a planted FIFO: exit $rc"; cat "$dir/d3.err"
fi

# -whatif's plan, in a NEWDIR holding a planted link.
W=$dir/wi && mkdir "$W" && cd "$W" || exit 1
WPROG=$PG_BUILD/tests/plain_whatif
timeout 120 "$PANGAEA" -log -logdir base "$WPROG" print >base.out 2>&1 ||
    pg_fail "the what-if program's recording failed"
alt=$(timeout 60 "$PANGAEA" -races -json base 2>/dev/null | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["alternatives"]]
a = r[0]["alternatives"][0] if r else None
print("%d:%d=%d:%d" % (1, r[0]["seq"], a["ltid"], a["msgid"]) if r else "")')
mkdir -m 700 new && ln -s "$dir/victim" new/whatif.plan
rc=0; timeout 120 "$PANGAEA" -whatif "$alt" -logdir base -o new "$WPROG" print >wi.out 2>wi.err || rc=$?
if [ -n "$alt" ] && [ "$rc" -ne 0 ] && [ "$(cat "$dir/victim")" = precious ] &&
   grep -q "whatif.plan is a symbolic link" wi.err; then
    pg_pass "-whatif: a link planted as NEWDIR/whatif.plan is refused by name, its target untouched"
else
    pg_fail "-whatif $alt with a planted link: exit $rc, victim '$(head -c 40 "$dir/victim")'"; cat wi.err
fi
cd "$dir/run" || exit 1

# -live: a stale .pangaea-live.* that is a link to a directory elsewhere.
L=$(copy live)
mkdir "$dir/elsewhere" && : >"$dir/elsewhere/control" && : >"$dir/elsewhere/ltid-1.pos"
ln -s "$dir/elsewhere" "$L/.pangaea-live.planted"
rc=0; timeout 120 "$PANGAEA" -replay -live -logdir "$L" "$dir/evil" 2 5 >"$dir/lv.out" 2>"$dir/lv.err" </dev/null || rc=$?
if [ -e "$dir/elsewhere/control" ] && [ -e "$dir/elsewhere/ltid-1.pos" ] &&
   grep -q "pangaea-live.planted is not a directory (a symbolic link?): left alone" "$dir/lv.err"; then
    pg_pass "-live: a stale .pangaea-live.* link is left alone, nothing it points to deleted (replay exit $rc)"
else
    pg_fail "-live clean-up followed a link: exit $rc, left: $(ls "$dir/elsewhere" | tr '\n' ' ')"; cat "$dir/lv.err"
fi

# --- 3. strings from logs, module paths ------------------------------------
timeout 60 "$PANGAEA" -races "$LOGS" >"$dir/races.out" 2>&1
timeout 60 "$PANGAEA" -dump "$LOGS" 1 >"$dir/dump.out" 2>&1
for f in races dump; do
    if grep -qF 'evil.c' "$dir/$f.out" && ! grep -q "$ESC" "$dir/$f.out" &&
       grep -qF '\x1b]0;PWNED\x07evil.c' "$dir/$f.out"; then
        pg_pass "-$f prints the debug information's file name with its escapes as \\x1b, never the byte"
    else
        pg_fail "-$f: raw escapes $(grep -c "$ESC" "$dir/$f.out"), escaped $(grep -cF '\x1b' "$dir/$f.out")"
        head -c 600 "$dir/$f.out" | cat -v
    fi
done
L=$(copy tasks-c1)
sed -i '0,/program="[^"]*"/s||program="/x/evil\&#x9b;31mRED"|' "$L/ltid-2.exec.xml"
CSI=$(printf '\302\233')
timeout 60 "$PANGAEA" -tasks "$L" >"$dir/tasks.out" 2>&1
if grep -qF '/x/evil\x9b31mRED' "$dir/tasks.out" && ! grep -q "$CSI" "$dir/tasks.out"; then
    pg_pass "-tasks prints a program name holding a C1 control (CSI, valid in XML) as \\x9b, never the bytes"
else
    pg_fail "-tasks: the program name with CSI printed as: $(grep evil "$dir/tasks.out" | cat -v)"
fi
L=$(copy fifo-module)
mkfifo "$dir/fifo"
if pg_comm_edit "$L" 1 "s|module=\"[^\"]*evil\"|module=\"$dir/fifo\"|" &&
   "$PANGAEA" -dump "$L" 1 2>/dev/null | grep -q "module=\"$dir/fifo\""; then
    for m in "-dump $L 1" "-tasks $L" "-races $L"; do
        rc=0
        # shellcheck disable=SC2086 # the mode and its arguments
        timeout 60 "$PANGAEA" $m >"$dir/fm.out" 2>"$dir/fm.err" </dev/null || rc=$?
        if [ "$rc" -ne 124 ] && [ -s "$dir/fm.out" ]; then
            pg_pass "pangaea ${m%% *} with a site's module naming a FIFO ends (exit $rc), the FIFO not read"
        else
            pg_fail "pangaea ${m%% *} with a FIFO module: exit $rc"; cat "$dir/fm.err"
        fi
    done
else
    pg_fail "the site's module could not be crafted"
fi

# --- 4. the recorded working directory and stdin ---------------------------
L=$(copy cwd)
sed -i '0,/ cwd="[^"]*"/s|| cwd="/"|' "$L/ltid-0.exec.xml"
rc=0; timeout 60 "$PANGAEA" -replay -logdir "$L" "$dir/evil" 2 5 >"$dir/c1.out" 2>"$dir/c1.err" </dev/null || rc=$?
refused "a recorded cwd=\"/\" is refused without -cwd recorded, naming it" "$rc" "$dir/c1.err" \
    "ran its tasks in /, not in this directory \($dir/run\).*-cwd recorded"
rc=0; timeout 120 "$PANGAEA" -replay -cwd recorded -logdir "$L" "$dir/evil" 2 5 >"$dir/c2.out" 2>"$dir/c2.err" </dev/null || rc=$?
if [ "$rc" -eq 0 ] && grep -q "tasks start in /, the directory of the recording (-cwd recorded" "$dir/c2.err"; then
    pg_pass "with -cwd recorded the replay starts the tasks in the recorded directory"
else
    pg_fail "-cwd recorded: exit $rc"; cat "$dir/c2.err"
fi
L=$(copy stdin-link)
rm "$L/pangaea-stdin" && ln -s /etc/passwd "$L/pangaea-stdin"
rc=0; timeout 60 "$PANGAEA" -replay -logdir "$L" "$dir/evil" 2 5 >"$dir/s1.out" 2>"$dir/s1.err" </dev/null || rc=$?
refused "a pangaea-stdin that is a symbolic link is refused by name" "$rc" "$dir/s1.err" \
    "$L/pangaea-stdin is a symbolic link, not a regular file"
L=$(copy stdin-fifo)
rm "$L/pangaea-stdin" && mkfifo "$L/pangaea-stdin"
rc=0; timeout 60 "$PANGAEA" -replay -logdir "$L" "$dir/evil" 2 5 >"$dir/s2.out" 2>"$dir/s2.err" </dev/null || rc=$?
refused "a pangaea-stdin that is a FIFO is refused by name (no hang)" "$rc" "$dir/s2.err" \
    "$L/pangaea-stdin is a FIFO, not a regular file"

cd / && pg_summary
