# Pangaea - record and replay for PVM programs.
#   make          build the library, the `pangaea` command, the coordinator, the demo
#   make check    the layers of the sources (tests/layers.sh), unit tests
#                 (Check) and end-to-end tests on a private pvmd
#   make demo     record and replay the SOR demo on a private pvmd
#   make bench    benchmarks, Pangaea against raw PVM (not in check; BENCHMARKS.md)
#   make fuzz     libFuzzer on the log reader for FUZZ_TIME seconds (not in check)
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -fPIC
# CI builds with `make check WERROR=1` (.ci/run): a warning fails the build.
ifeq ($(WERROR),1)
CFLAGS  += -Werror
endif
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
XML_LIBS   := $(shell pkg-config --libs libxml-2.0 2>/dev/null || echo -lxml2)
# Where `pangaea` finds the rest is found at run time, relative to its
# executable (src/toplevel/paths.c); PG_SCHEMA_DIR is the source tree's
# schema, for the unit tests and as the last resort.
# The version is debian/changelog's (one place; man/ and -version agree:
# tests/e2e/test_install.sh).
VERSION := $(shell head -n 1 debian/changelog | cut -d'(' -f2 | cut -d')' -f1 | cut -d- -f1)
CPPFLAGS += -Iinclude -Isrc/lib $(XML_CFLAGS) \
            -DPG_SCHEMA_DIR='"$(abspath schema)"' -DPG_VERSION='"$(VERSION)"'
# -pack (src/toplevel/pack.c, unpack.c): tar + zstd through libarchive;
# only the command links it, never the library preloaded into tasks.
ARCHIVE_LIBS := $(shell pkg-config --libs libarchive 2>/dev/null || echo -larchive)
B := build
PVMLIBS := -lpvm3
SYSLIBS := -ldl -lm -lnettle
# -live serves the run's event graph over HTTP (src/toplevel/live*.c).
MHD_LIBS := -lmicrohttpd -pthread

LIB_SRC  := $(wildcard src/lib/*.c)
LIB_OBJ  := $(LIB_SRC:src/lib/%.c=$(B)/lib/%.o)
TOP_SRC  := $(wildcard src/toplevel/*.c)
TOP_OBJ  := $(TOP_SRC:src/toplevel/%.c=$(B)/toplevel/%.o)
COORD_SRC := $(wildcard src/coordinator/*.c)
COORD_OBJ := $(COORD_SRC:src/coordinator/%.c=$(B)/coordinator/%.o)

# The test programs (one of them Fortran: gfortran) are built for the
# tests, not by `make` alone, so the demo needs no test-only package.
all: $(B)/libpangaea.so $(B)/libpangaea.a $(B)/pangaea $(B)/pangaea-coord \
     $(B)/pangaea-debugger $(B)/sor

# Hidden by default, and a version script: the library exports only the PVM
# calls it wraps (src/lib/pg_calls.def) and pangaea.h's: the version script
# $(B)/libpangaea.map is made from src/lib/libpangaea.map.in and that list.
$(B)/lib/%.o: src/lib/%.c $(wildcard src/lib/*.h src/lib/*.def include/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fvisibility=hidden -c $< -o $@
$(B)/toplevel/%.o: src/toplevel/%.c $(wildcard src/lib/*.h src/lib/*.def src/toplevel/*.h src/toplevel/*.def include/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
# display.c embeds the page template with .incbin (pangaea -display).
$(B)/toplevel/display.o: src/toplevel/graph.html
$(B)/toplevel/live.o: src/toplevel/live.html
# filter_assets.c embeds the filters both pages use.
$(B)/toplevel/filter_assets.o: src/toplevel/filter.js src/toplevel/filter.css
$(B)/coordinator/%.o: src/coordinator/%.c $(wildcard src/lib/*.h src/lib/*.def include/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libpangaea.map: src/lib/libpangaea.map.in src/lib/pg_calls.def
	@mkdir -p $(@D)
	$(CC) -E -P -x c -Isrc/lib $< -o $@
$(B)/libpangaea.so: $(LIB_OBJ) $(B)/libpangaea.map
	$(CC) -shared -Wl,--version-script=$(B)/libpangaea.map -o $@ $(LIB_OBJ) $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
$(B)/libpangaea.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The top-level task is itself a Pangaea task (ltid 0): it links the library.
$(B)/pangaea: $(TOP_OBJ) $(B)/libpangaea.a
	$(CC) -o $@ $(TOP_OBJ) $(B)/libpangaea.a $(XML_LIBS) $(ARCHIVE_LIBS) $(PVMLIBS) $(SYSLIBS) $(MHD_LIBS)
# The coordinator is a plain PVM task; it shares only the protocol header.
$(B)/pangaea-coord: $(COORD_OBJ) $(B)/lib/err.o $(B)/lib/grow.o
	$(CC) -o $@ $^ $(PVMLIBS)

# A Fortran PVM program built with -g (libfpvm3's bindings): test_debug
# checks that its call sites name its Fortran lines.
test-programs: $(B)/tests/fortran_self
$(B)/tests/fortran_self: tests/programs/fortran_self.f
	@mkdir -p $(@D)
	gfortran -g -O0 -I/usr/include -o $@ $< -lfpvm3 $(PVMLIBS)

# PVM_DEBUGGER for `pangaea -replay -debug` (src/toplevel/debug.c).
$(B)/pangaea-debugger: src/toplevel/pangaea-debugger.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# The demo, built the instrumented way: pangaea.h and -lpangaea ahead of -lpvm3.
$(B)/sor: examples/sor/sor.c include/pangaea.h $(B)/libpangaea.so
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(B) -Wl,-rpath,$(abspath $(B)) -lpangaea $(PVMLIBS) -lm

# Test programs: tests/programs/*.c.  Those named plain_* are built against
# PVM only (never seen Pangaea: they run preloaded); the others link -lpangaea.
PROG_SRC := $(wildcard tests/programs/*.c)
PROGS    := $(PROG_SRC:tests/programs/%.c=$(B)/tests/%)
test-programs: $(PROGS)
$(B)/tests/plain_%: tests/programs/plain_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(PVMLIBS) -lm
$(B)/tests/%: tests/programs/%.c $(B)/libpangaea.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(B) -Wl,-rpath,$(abspath $(B)) -lpangaea $(PVMLIBS) -lm
# Group programs (group_*) also need libgpvm3, ahead of libpvm3.
$(B)/tests/group_%: tests/programs/group_%.c $(B)/libpangaea.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(B) -Wl,-rpath,$(abspath $(B)) -lpangaea -lgpvm3 $(PVMLIBS) -lm
# Another binary of the same name (test_changed.sh: a replay must notice).
test-programs: $(B)/tests/variant/plain_sized
$(B)/tests/variant/plain_sized: tests/programs/plain_sized.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DPLAIN_SIZED_VARIANT -o $@ $< $(PVMLIBS) -lm
# plain_query and plain_freeze ask the group server too.
$(B)/tests/plain_freeze: tests/programs/plain_freeze.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lgpvm3 $(PVMLIBS) -lm
$(B)/tests/plain_query: tests/programs/plain_query.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lgpvm3 $(PVMLIBS) -lm
# comm_from_xml writes a binary comm log from a -dump (tests that edit logs).
test-programs: $(B)/tests/comm_from_xml
$(B)/tests/comm_from_xml: tests/tools/comm_from_xml.c $(B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
# pvm_api prints src/lib/pg_api.def (test_pvm_api.sh, the README's list).
test-programs: $(B)/tests/pvm_api
$(B)/tests/pvm_api: tests/tools/pvm_api.c src/lib/pg_api.def
	@mkdir -p $(@D)
	$(CC) -Isrc/lib $(CFLAGS) -o $@ $<
# gen_logs writes synthetic recordings with the log API (display tests).
test-programs: $(B)/tests/gen_logs
$(B)/tests/gen_logs: tests/tools/gen_logs.c $(B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)

# The unit tests and replay_corpus feed random, mutated and cut bytes to
# the library: a test that only waits for a crash would miss a read past a
# buffer or an overflow, so they are built with AddressSanitizer and UBSan
# (any report ends the test with a failure), against a sanitized copy of
# the library's objects in $(SAN_B)/; the library itself stays unsanitized.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_B     := $(B)/asan
SAN_OBJ   := $(LIB_SRC:src/lib/%.c=$(SAN_B)/lib/%.o)
$(SAN_B)/lib/%.o: src/lib/%.c $(wildcard src/lib/*.h src/lib/*.def include/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(SAN_B)/libpangaea.a: $(SAN_OBJ)
	rm -f $@ && ar rcs $@ $^

# Unit tests (Check): tests/unit/test_*.c, each its own binary, sanitized.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)
# They may test the command's parts too (test_lamport.c): its objects but
# main.o, sanitized, in $(SAN_B)/libtop.a.
SAN_TOP_OBJ := $(filter-out $(SAN_B)/toplevel/main.o,$(TOP_SRC:src/toplevel/%.c=$(SAN_B)/toplevel/%.o))
$(SAN_B)/toplevel/%.o: src/toplevel/%.c $(wildcard src/lib/*.h src/lib/*.def src/toplevel/*.h src/toplevel/*.def include/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(SAN_B)/toplevel/display.o: src/toplevel/graph.html
$(SAN_B)/toplevel/live.o: src/toplevel/live.html
$(SAN_B)/toplevel/filter_assets.o: src/toplevel/filter.js src/toplevel/filter.css
$(SAN_B)/libtop.a: $(SAN_TOP_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/unit/%: tests/unit/%.c $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/toplevel $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a $(CHECK_LIBS) $(XML_LIBS) $(ARCHIVE_LIBS) $(PVMLIBS) $(SYSLIBS) $(MHD_LIBS)

unit: $(UNITS)
	@set -e; for t in $(UNITS); do echo "== $$t"; $$t; done

e2e: all test-programs
	@bash tests/e2e/run_all.sh

# The files form layers without a cycle (tests/layers.sh reads the objects).
layers: all
	@bash tests/layers.sh

check: all test-programs layers unit e2e

demo: all
	@bash examples/sor/demo.sh

# Benchmarks (not part of `make check`): bench/*.c are plain PVM programs
# (built against PVM only, run raw and under `pangaea`); bench/run.sh runs
# them on a private pvmd and writes bench/results/, then bench/views.sh times
# the views of generated recordings (VIEWS_FLAGS) and bench/pages.sh the
# event-graph pages in headless Chromium (PAGES_FLAGS).  BENCH_FLAGS goes to
# run.sh (e.g. BENCH_FLAGS=--quick).
# $(B)/bench/sor is the SOR demo built the same plain way; $(B)/bench/logio
# (bench/micro/) times the log format alone, with the library's log API.
BENCH_SRC  := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRC:bench/%.c=$(B)/bench/%) $(B)/bench/sor $(B)/bench/logio
$(B)/bench/%: bench/%.c bench/bench.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(PVMLIBS) -lm
$(B)/bench/sor: examples/sor/sor.c include/pangaea.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iinclude -o $@ $< $(PVMLIBS) -lm
$(B)/bench/logio: bench/micro/logio.c $(B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
bench-programs: $(BENCH_BINS)
bench: all bench-programs test-programs
	@bash bench/run.sh $(BENCH_FLAGS)
	@bash bench/views.sh $(VIEWS_FLAGS)
	@bash bench/pages.sh $(PAGES_FLAGS)

# make install PREFIX=/usr/local [DESTDIR=/stage] [LIBDIR=...]; make uninstall
# (the same variables).  The layout is what src/toplevel/paths.c looks for
# beside the installed `pangaea`: PREFIX/bin/pangaea, PREFIX/lib/pangaea/
# (the coordinator and a link to the library it preloads into tasks),
# PREFIX/share/pangaea/ (the schema); so bin, lib/pangaea and share stay
# under PREFIX, while LIBDIR (the library, pangaea.pc) may be multiarch.
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
PKGLIBDIR  = $(PREFIX)/lib/pangaea
INCLUDEDIR = $(PREFIX)/include
DATADIR    = $(PREFIX)/share/pangaea
MANDIR     = $(PREFIX)/share/man
INSTALLED  = $(PREFIX)/bin/pangaea $(PKGLIBDIR)/pangaea-coord \
             $(PKGLIBDIR)/libpangaea.so $(LIBDIR)/libpangaea.so \
             $(LIBDIR)/libpangaea.a $(INCLUDEDIR)/pangaea.h \
             $(DATADIR)/pangaea-log.xsd $(LIBDIR)/pkgconfig/pangaea.pc \
             $(MANDIR)/man1/pangaea.1 $(MANDIR)/man3/pangaea.3
$(B)/pangaea.pc: pangaea.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< >$@
install: $(B)/libpangaea.so $(B)/libpangaea.a $(B)/pangaea $(B)/pangaea-coord
	rm -f $(B)/pangaea.pc && $(MAKE) --no-print-directory $(B)/pangaea.pc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PKGLIBDIR) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 755 $(B)/pangaea $(DESTDIR)$(PREFIX)/bin/pangaea
	install -m 755 $(B)/pangaea-coord $(DESTDIR)$(PKGLIBDIR)/pangaea-coord
	install -m 755 $(B)/libpangaea.so $(DESTDIR)$(LIBDIR)/libpangaea.so
	install -m 644 $(B)/libpangaea.a $(DESTDIR)$(LIBDIR)/libpangaea.a
	ln -sfn $$(realpath -m --relative-to=$(PKGLIBDIR) $(LIBDIR)/libpangaea.so) \
	    $(DESTDIR)$(PKGLIBDIR)/libpangaea.so
	install -m 644 include/pangaea.h $(DESTDIR)$(INCLUDEDIR)/pangaea.h
	install -m 644 schema/pangaea-log.xsd $(DESTDIR)$(DATADIR)/pangaea-log.xsd
	install -m 644 $(B)/pangaea.pc $(DESTDIR)$(LIBDIR)/pkgconfig/pangaea.pc
	install -m 644 man/pangaea.1 $(DESTDIR)$(MANDIR)/man1/pangaea.1
	install -m 644 man/pangaea.3 $(DESTDIR)$(MANDIR)/man3/pangaea.3
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf $(B)

.PHONY: all check layers unit e2e demo clean test-programs bench bench-programs \
        install uninstall

# race.c is plain_race.c built the instrumented way.
$(B)/tests/race: tests/programs/plain_race.c

# The racing program linked with the static library (a second copy of the
# runtime is then preloaded by pangaea: it must stay out of the way).
$(B)/tests/static_race: tests/programs/race.c tests/programs/plain_race.c $(B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
test-programs: $(B)/tests/static_race

# The same racing program linked with a second copy of the shared library,
# in another directory: `pangaea` preloads build/libpangaea.so into it, so
# two copies run in one process (tests/e2e/test_symbols.sh).
$(B)/alt/libpangaea.so: $(LIB_OBJ) $(B)/libpangaea.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=$(B)/libpangaea.map -o $@ $(LIB_OBJ) $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
$(B)/tests/alt_race: tests/programs/race.c tests/programs/plain_race.c $(B)/alt/libpangaea.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(B)/alt -Wl,-rpath,$(abspath $(B)/alt) -lpangaea $(PVMLIBS) -lm
test-programs: $(B)/tests/alt_race

# Fuzzing the log reader (tests/fuzz/; not part of `make check`, which only
# replays tests/fuzz/corpus/ and regressions/ through replay_corpus, the same
# target without libFuzzer, sanitized as the unit tests are).
# `make fuzz FUZZ_TIME=300` runs longer.
FUZZ_TIME ?= 60
FUZZ_SRC  := $(wildcard src/lib/log_*.c) src/lib/err.c
$(B)/fuzz/replay_corpus: tests/fuzz/replay_corpus.c tests/fuzz/fuzz_logr.c $(SAN_B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -o $@ $(filter %.c,$^) $(SAN_B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
test-programs: $(B)/fuzz/replay_corpus
$(B)/fuzz/fuzz_logr: tests/fuzz/fuzz_logr.c $(FUZZ_SRC) $(wildcard src/lib/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^) $(XML_LIBS)
fuzz: $(B)/fuzz/fuzz_logr
	@bash tests/fuzz/run.sh $< $(FUZZ_TIME)
.PHONY: fuzz
