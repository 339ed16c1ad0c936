#!/usr/bin/env bash
# test_arch_doc.sh - docs/ARCHITECTURE.md and docs/DEVELOPING.md name only
# what exists, and every page names only paths of the tree.
#
# The architecture page follows a receive through the code by file and
# function name; a rename or a move that forgets the page would send the
# next engineer looking for what is gone.  Every `name.ext` it quotes in
# backticks (a file: .c .h .def .sh .md .py .xsd .html) must be a file of
# the tree (at that path when it gives one), and every quoted identifier that looks like one of the code's
# (pg_*, PG_*, an ALL_CAPS name with an underscore, a name followed by
# "()") must be defined or used in src/
# or tests/.  Also: the tree cites only itself (no path outside it, no
# tracker's issue numbers in src/, tests/ or docs/), and no compiled
# Python is in git.  No pvmd.
set -u
. "$(dirname "$0")/lib.sh"

cd "$PG_ROOT" || exit 1

# check_page PAGE LEAST: the files and identifiers PAGE names exist (it
# names more than LEAST of each, so a page that lost its content fails).
check_page() {
    local PAGE=$PG_ROOT/$1 name=${1##*/} least=$2 f base id missing n
    [ -f "$PAGE" ] || { pg_fail "$1 is missing"; return; }

    # Files: every backticked token with a known extension, its last part.
    missing=
    n=0
    for f in $(grep -o '`[^` ]*\.\(c\|h\|def\|sh\|md\|py\|xsd\|html\)`' "$PAGE" |
               tr -d '`' | sort -u); do
        n=$((n + 1))
        base=${f##*/}
        if [ -e "$f" ] || { [ "$f" = "$base" ] && [ -n "$(git ls-files "*/$base" "$base" | head -n 1)" ]; }; then
            continue
        fi
        missing="$missing $f"
    done
    if [ -z "$missing" ] && [ "$n" -gt "$least" ]; then
        pg_pass "$name: the $n files it names exist"
    else
        pg_fail "$name names files that are not in the tree ($n named):$missing"
    fi

    # Identifiers: pg_x, PG_X, and name() in backticks, in the C sources,
    # the tables or the scripts (the test runner's settings are shell).
    missing=
    n=0
    for id in $(grep -o '`[A-Za-z_][A-Za-z0-9_.]*\(()\)\?`' "$PAGE" | tr -d '`' |
                grep -E '^(pg_|PG_|[A-Z][A-Z0-9]*_[A-Z0-9_]+$)|\(\)$' | sed 's/()$//' | sort -u); do
        n=$((n + 1))
        grep -rqw --include='*.[ch]' --include='*.def' --include='*.sh' -- "$id" src tests ||
            missing="$missing $id"
    done
    if [ -z "$missing" ] && [ "$n" -gt "$least" ]; then
        pg_pass "$name: the $n functions, macros and variables it names are in the code"
    else
        pg_fail "$name names what the code does not have ($n named):$missing"
    fi
}
check_page docs/ARCHITECTURE.md 20
check_page docs/DEVELOPING.md 5

# Every path into src/, tests/, bench/ or schema/ that any page quotes
# (README, BENCHMARKS, docs/, man pages) exists: a move that forgot a page
# sends its reader to a file that is gone.
missing=
n=0
# (A path followed by * is a pattern: wrap_*.c; a doctest marker names
# built programs.)
path_re='(?<![A-Za-z0-9_./-])(src|tests|bench|schema)/[A-Za-z0-9_./-]*[A-Za-z0-9](?![A-Za-z0-9_./*-])'
for f in $(git grep -hIP "$path_re" -- README.md BENCHMARKS.md 'docs/*.md' 'man/*' |
           grep -v 'doctest:' | grep -oP "$path_re" | sort -u); do
    n=$((n + 1))
    # there; a program built from f.c; or what make bench writes
    [ -e "$f" ] || [ -e "$f.c" ] || [[ $f == bench/results/* ]] ||
        missing="$missing $f"
done
if [ -z "$missing" ] && [ "$n" -gt 50 ]; then
    pg_pass "the $n paths into src/, tests/, bench/ and schema/ the pages quote exist"
else
    pg_fail "pages quote paths that are not in the tree ($n quoted):$missing"
fi

# The tree refers only to itself.
out=$(git grep -nIE 'issues? #?[0-9]+|PVM-FACTS|MPI-FACTS|\.\./shared|/work/shared' -- src tests docs ':!tests/e2e/test_arch_doc.sh' | head -5)
if [ -z "$out" ]; then
    pg_pass "src/, tests/ and docs/ cite no issue number and no file outside the tree"
else
    pg_fail "the tree cites what is not in it:"; echo "$out"
fi
out=$(git ls-files '*.pyc' '*__pycache__*' | head -3)
if [ -z "$out" ]; then
    pg_pass "no compiled Python in git"
else
    pg_fail "compiled Python in git: $out"
fi
pg_summary
