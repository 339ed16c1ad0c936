#!/usr/bin/env bash
# test_install.sh - `make install` gives a pangaea that works with no build
# tree, a library and header usable through pkg-config, man pages that
# render; and the help, the man page and the README name the same options.
#
# Design.  The build tree is hidden without touching the shared one: the
# source tree is copied (no build/) into a temp dir, built and installed
# there with PREFIX=/opt/pangaea-test DESTDIR=STAGE, and the copy is then
# deleted, so nothing the installed files could point to is left (the
# schema path compiled in as a last resort points into the deleted copy).
# The installed pangaea runs from STAGE/opt/pangaea-test, where it was
# never meant to be: it finds its coordinator, library and schema relative
# to itself.  A racing program (tests/programs/race.c) is built against the
# installed header and library through pkg-config (PKG_CONFIG_SYSROOT_DIR
# maps the prefix into STAGE), and recorded and replayed by the installed
# pangaea: unrecorded runs must differ, replays must print the recording.
# `make uninstall` must then leave no file behind.
# The options: every -word of `pangaea --help` must be in the man page (as
# man renders it) and in README.md; other helpers' options join by being
# in the help, so the list is never kept here.
set -u
. "$(dirname "$0")/lib.sh"

BIN=$PG_BUILD/pangaea

# --- -help, -version, and the options in three places ----------------------
for h in -help --help; do
    out=$("$BIN" "$h" 2>/dev/null); rc=$?
    if [ $rc -eq 0 ] && [[ $out == usage:* ]]; then
        pg_pass "pangaea $h prints the usage on stdout and exits 0"
    else
        pg_fail "pangaea $h: exit $rc, stdout: ${out:0:80}"
    fi
done
for v in -version --version; do
    out=$("$BIN" "$v" 2>/dev/null); rc=$?
    if [ $rc -eq 0 ] && [[ $(head -n 1 <<<"$out") =~ ^pangaea\ [0-9]+\.[0-9]+ ]]; then
        pg_pass "pangaea $v prints \"$(head -n 1 <<<"$out")\" and exits 0"
    else
        pg_fail "pangaea $v: exit $rc, stdout: ${out:0:80}"
    fi
done

# One version: the man pages' headers say the one -version prints.
version=$("$BIN" --version | sed -n '1s/^pangaea //p')
if [ -n "$version" ] && grep -q "^\.TH PANGAEA 1 .*\"pangaea $version\"" "$PG_ROOT/man/pangaea.1" &&
   grep -q "^\.TH PANGAEA 3 .*\"pangaea $version\"" "$PG_ROOT/man/pangaea.3"; then
    pg_pass "pangaea(1) and pangaea(3) are of version $version, as pangaea -version says"
else
    pg_fail "the man pages' version differs from pangaea -version ($version)"
fi

# The options the help names: -word or --word after a space, [ or |.
options=$("$BIN" --help | grep -oE '(^|[][ |])--?[a-z][a-z-]*' |
          sed -E 's/^[][ |]//' | sort -u)
man1=$(LANG=C MANROFFOPT=-rHY=0 MANWIDTH=250 man -l "$PG_ROOT/man/pangaea.1" 2>/dev/null)
nopts=0 missing_man= missing_readme=
for o in $options; do
    nopts=$((nopts + 1))
    grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" <<<"$man1" || missing_man+=" $o"
    grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" "$PG_ROOT/README.md" || missing_readme+=" $o"
done
if [ "$nopts" -ge 10 ] && [ -z "$missing_man" ] && [ -z "$missing_readme" ]; then
    pg_pass "all $nopts options of pangaea --help are in pangaea(1) and README.md"
else
    pg_fail "options of --help ($nopts) missing from pangaea(1):${missing_man:- none}; from README.md:${missing_readme:- none}"
fi

# --- install from a copy, then delete the copy ------------------------------
src=$(pg_tmpdir)/src
stage=$(pg_tmpdir)
prefix=/opt/pangaea-test
mkdir -p "$src"
tar -C "$PG_ROOT" --exclude=./build --exclude=./logs --exclude=./.git -cf - . |
    tar -C "$src" -xf -
# Built at -O0 (CFLAGS from the environment, as a user may): what is
# checked is what install lays out and that it runs; the optimized build
# is the shared tree's, and -O0 halves this copy's compile (15 -> 6 CPU-s).
if CFLAGS="-O0 -g" make -C "$src" -j2 install PREFIX=$prefix DESTDIR="$stage" >"$stage.log" 2>&1; then
    pg_pass "make install PREFIX=$prefix DESTDIR=... from a copy of the tree"
else
    pg_fail "make install failed:"; tail -20 "$stage.log"
    pg_summary; exit 1
fi
rm -rf "$src" "$stage.log"
root=$stage$prefix
[ -d "$src" ] || pg_pass "the build tree is gone before the installed pangaea runs"

for m in 1 3; do
    page=$root/share/man/man$m/pangaea.$m
    text=$(LANG=C MANWIDTH=80 man -l "$page" 2>&1 >/dev/null)
    lines=$(LANG=C MANWIDTH=80 man -l "$page" 2>/dev/null | wc -l)
    if [ -z "$text" ] && [ "$lines" -gt 40 ] &&
       LANG=C man -l "$page" 2>/dev/null | grep -q "^NAME"; then
        pg_pass "man -l renders the installed pangaea($m) ($lines lines, no warning)"
    else
        pg_fail "pangaea($m) does not render cleanly: ${text:0:200}"
    fi
done

# --- a program built through pkg-config, run by the installed pangaea -------
export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --cflags --libs pangaea 2>&1)
prog=$(pg_tmpdir)/race
if cc -o "$prog" "$PG_ROOT/tests/programs/race.c" -I"$PG_ROOT/tests/programs" \
      $flags -Wl,-rpath,"$root/lib" -lpvm3 -lm 2>"$prog.err" &&
   readelf -d "$prog" | grep -q 'NEEDED.*libpangaea' &&
   ldd "$prog" | grep -q "=> $root/lib/libpangaea.so"; then
    pg_pass "race.c builds against the installed pangaea.h and libpangaea ($flags)"
else
    pg_fail "building with pkg-config ($flags) failed: $(head -5 "$prog.err")"
fi

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
# With the build tree gone, a replay that passes has found the installed
# coordinator, and validated the execution logs against the installed
# schema (a missing schema is exit 2).
PG_BUILD=$root/bin PG_RUNS=6 pg_replay_case "installed pangaea, pkg-config program" "$prog"
# An unmodified binary is recorded only through the library the installed
# pangaea preloads into its tasks (PREFIX/lib/pangaea/libpangaea.so).
PG_BUILD=$root/bin PG_RUNS=4 pg_replay_case "installed pangaea, unmodified plain_race (preloaded)" \
    "$PG_BUILD/tests/plain_race"
# --- uninstall ----------------------------------------------------------------
if make -s -C "$PG_ROOT" uninstall PREFIX=$prefix DESTDIR="$stage" >/dev/null 2>&1 &&
   [ -z "$(find "$stage" -type f -o -type l)" ]; then
    pg_pass "make uninstall removes every installed file"
else
    pg_fail "make uninstall left: $(find "$stage" -type f -o -type l | head -5)"
fi

pg_summary
