#!/usr/bin/env bash
# test_debian.sh - debian/ builds a package with `dpkg-buildpackage -us -uc`,
# and the pangaea in it records and replays.
#
# Design.  dpkg-buildpackage (noopt, below) writes its results beside the
# source tree and cleans inside it, so it runs on a copy of the tree (no
# build/) in a temp dir, never on the shared one.  The package is not installed on this
# machine (other work shares it): it is unpacked with dpkg-deb -x into a
# temp root, whose usr/bin/pangaea finds its coordinator and library
# relative to itself, and records and replays an unmodified racing program
# (preloaded): unrecorded runs differ, replays print the recording.
set -u
. "$(dirname "$0")/lib.sh"

command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
    pg_skip "dpkg-buildpackage or debhelper not installed (install-deps.sh test installs them)"

top=$(pg_tmpdir)
mkdir "$top/src"
tar -C "$PG_ROOT" --exclude=./build --exclude=./logs --exclude=./.git -cf - . |
    tar -C "$top/src" -xf -
# DEB_BUILD_OPTIONS=noopt (Debian policy's, -O0): what is checked is the
# packaging and that the packaged pangaea runs; the optimized build is the
# shared tree's, and noopt cuts the package's compile from 17.5 to 9 CPU-s.
if (cd "$top/src" && DEB_BUILD_OPTIONS=noopt timeout 1100 dpkg-buildpackage -us -uc >"$top/build.log" 2>&1); then
    pg_pass "dpkg-buildpackage -us -uc builds the package"
else
    pg_fail "dpkg-buildpackage failed:"; tail -20 "$top/build.log"
    pg_summary; exit 1
fi
deb=$(ls "$top"/pangaea_*_*.deb 2>/dev/null | head -n 1)
want="./usr/bin/pangaea ./usr/lib/pangaea/pangaea-coord ./usr/lib/pangaea/libpangaea.so
./usr/lib/libpangaea.so ./usr/include/pangaea.h ./usr/lib/pkgconfig/pangaea.pc
./usr/share/pangaea/pangaea-log.xsd ./usr/share/man/man1/pangaea.1.gz ./usr/share/man/man3/pangaea.3.gz"
contents=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{print $6}')
missing=
for f in $want; do grep -qxF "$f" <<<"$contents" || missing+=" $f"; done
if [ -n "$deb" ] && [ -z "$missing" ] &&
   dpkg-deb -f "$deb" Depends | grep -q 'libpvm3' ; then
    pg_pass "$(basename "$deb") holds the command, coordinator, library, header, pkg-config file, schema and man pages; depends on $(dpkg-deb -f "$deb" Depends | tr -d '\n' | cut -c1-80)"
else
    pg_fail "the package lacks:${missing:- (no .deb)}"
fi

root=$(pg_tmpdir)
dpkg-deb -x "$deb" "$root"
rm -rf "$top/src"
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
PG_BUILD=$root/usr/bin PG_RUNS=5 pg_replay_case "the packaged pangaea (unpacked, not installed), plain_race" \
    "$PG_BUILD/tests/plain_race"

pg_summary
