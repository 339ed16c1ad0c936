#!/usr/bin/env bash
# test_realprog_script.sh - tasks that are scripts are recorded as the
# scripts they are, and replay.
#
# Design.  (a) tests/scripts/slsh_master.sl (`#!/usr/bin/env slsh`, PVM
# from slang-pvm) spawns three slsh_slave.sl scripts and prints their
# answers in arrival order: the ltid must reach slsh through /usr/bin/env
# (the library's constructor runs first in env), unrecorded runs must
# differ, 10 replays must print the recorded output, and every execution
# log must name the script spawned, not the interpreter (program= and
# exe=, whose SHA-256 is the script's).  (b) A `#!/bin/sh` wrapper that
# execs plain_stdio is ltid 1: its log names the wrapper; the replay of an
# edited wrapper is refused (exit 3) as another program.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
MASTER=$PG_ROOT/tests/scripts/slsh_master.sl
SLAVE=$PG_ROOT/tests/scripts/slsh_slave.sl
dir=$(pg_tmpdir)
command -v slsh >/dev/null && [ -e /usr/lib/x86_64-linux-gnu/slang/v2/modules/pvm-module.so ] ||
    pg_skip "slsh and slang-pvm are not installed (scripts/install-deps.sh)"
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# --- (a) slsh scripts, spawned through /usr/bin/env -------------------------
PG_RUNS=10
pg_replay_case "slsh master and slaves" "$MASTER"
logs=$PG_CASE_LOGS
ok=1
for l in 1 2 3 4; do
    want=$([ "$l" = 1 ] && echo "$MASTER" || echo "$SLAVE")
    grep -q "<header [^>]* program=\"$want\"[^>]* exe=\"$want\" sha256=\"$(sha256sum <"$want" | cut -c1-64)\"" \
        "$logs/ltid-$l.exec.xml" 2>/dev/null || { ok=0; echo "ltid $l:"; head -3 "$logs/ltid-$l.exec.xml"; }
done
if [ "$ok" = 1 ]; then
    pg_pass "each execution log names the script spawned and its SHA-256, not slsh or env"
else
    pg_fail "execution logs do not name the scripts"
fi

# --- (b) a #!/bin/sh wrapper that execs the program -------------------------
cat >"$dir/wrap.sh" <<WRAP
#!/bin/sh
exec "$PG_BUILD/tests/plain_stdio" "\$@"
WRAP
chmod +x "$dir/wrap.sh"
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/wlogs" "$dir/wrap.sh" 2 </dev/null >"$dir/w.out" 2>"$dir/w.err" || rc=$?
if [ "$rc" -eq 0 ] && grep -q '^\[1\] child 1: ' "$dir/w.out" &&
   grep -q "<header [^>]* program=\"$dir/wrap.sh\"" "$dir/wlogs/ltid-1.exec.xml"; then
    pg_pass "a #!/bin/sh wrapper that execs the program is recorded as the wrapper"
else
    pg_fail "wrapper: exit $rc"; cat "$dir/w.out" "$dir/w.err"; head -3 "$dir/wlogs/ltid-1.exec.xml"
fi
echo "# edited" >>"$dir/wrap.sh"
rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/wlogs" "$dir/wrap.sh" 2 </dev/null >"$dir/w2.out" 2>"$dir/w2.err" || rc=$?
if [ "$rc" -eq 3 ] && grep -q "wrap.sh" "$dir/w2.err"; then
    pg_pass "the replay of an edited wrapper is refused (exit 3): $(grep -m1 'wrap.sh' "$dir/w2.err" | cut -c1-160)"
else
    pg_fail "edited wrapper replay: exit $rc"; cat "$dir/w2.err"
fi

pg_pvm_stop
pg_summary
