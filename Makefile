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
# executable (src/cli/files/paths.c); PG_SCHEMA_DIR is the source tree's
# schema, for the unit tests and as the last resort.
# The version is debian/changelog's (one place; man/ and -version agree:
# tests/e2e/test_install.sh).
VERSION := $(shell head -n 1 debian/changelog | cut -d'(' -f2 | cut -d')' -f1 | cut -d- -f1)
CPPFLAGS += -Iinclude $(XML_CFLAGS) \
            -DPG_SCHEMA_DIR='"$(abspath schema)"' -DPG_VERSION='"$(VERSION)"'
# -pack (src/cli/recording/pack.c, unpack.c): tar + zstd through libarchive;
# only the command links it, never the library preloaded into tasks.
ARCHIVE_LIBS := $(shell pkg-config --libs libarchive 2>/dev/null || echo -larchive)
B := build
PVMLIBS := -lpvm3
SYSLIBS := -ldl -lm -lnettle
# -live serves the run's event graph over HTTP (src/cli/live/).
MHD_LIBS := -lmicrohttpd -pthread

# The sources, by layer (docs/ARCHITECTURE.md; tests/layers.sh holds them):
#   src/base/         errors and growable arrays, used by everything
#   src/log/          the log format (events, binary and XML logs): no PVM
#   src/pvm/runtime/  the runtime inside each task (record, replay, gates)
#   src/pvm/wrap/     the PVM calls it wraps (pg_calls.def, pg_api.def)
#   src/pvm/coordinator/  the coordinator task
#   src/cli/*/        the `pangaea` command: run, recording, analysis,
#                     search, view, live
# Objects mirror the sources under $(B)/ (build/src/pvm/wrap/wrap_recv.o).
LIB_DIRS := src/base src/log src/pvm/runtime src/pvm/wrap
CLI_DIRS := $(sort $(dir $(wildcard src/cli/*/)))
CLI_DIRS := $(CLI_DIRS:%/=%)
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
TOP_SRC  := $(foreach d,$(CLI_DIRS),$(wildcard $(d)/*.c))
TOP_OBJ  := $(TOP_SRC:%.c=$(B)/%.o)
COORD_SRC := $(wildcard src/pvm/coordinator/*.c)
COORD_OBJ := $(COORD_SRC:%.c=$(B)/%.o)
LIB_DEPS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.h $(d)/*.def)) $(wildcard include/*.h)
TOP_DEPS := $(LIB_DEPS) $(foreach d,$(CLI_DIRS),$(wildcard $(d)/*.h $(d)/*.def))
# Headers are included by name: each folder is on the include path (the
# library's folders for all, the command's for the command).
CPPFLAGS += $(LIB_DIRS:%=-I%)
TOP_CPPFLAGS := $(CLI_DIRS:%=-I%) -Isrc/mpi
TOP_DEPS += src/mpi/pg_mpi_env.h

# The MPI front end (src/mpi/, docs/mpi-notes.md): a PMPI library built
# once per MPI installed, since their ABIs differ (MPI_Comm is an int in
# MPICH, a pointer in Open MPI): build/libpangaea-mpich.so and
# build/libpangaea-openmpi.so, each from src/mpi/ compiled against that
# MPI's mpi.h (what its mpicc says) and the log layer's objects.  The
# MPICH objects are $(B)/src/mpi/*.o (tests/layers.sh reads them), Open
# MPI's $(B)/openmpi/src/mpi/*.o.  Built only where the MPI is installed
# (install-deps.sh test installs both).
MPICH_INC := $(filter -I%,$(shell mpicc.mpich -show 2>/dev/null))
MPICH_LNK := $(filter -L% -l%,$(shell mpicc.mpich -show 2>/dev/null))
OMPI_INC  := $(filter -I%,$(shell mpicc.openmpi --showme:compile 2>/dev/null))
OMPI_LNK  := $(filter -L% -l%,$(shell mpicc.openmpi --showme:link 2>/dev/null))
MPI_SRC   := $(wildcard src/mpi/*.c)
MPI_DEPS  := $(wildcard src/mpi/*.h src/log/*.h src/log/*.def src/base/*.h)
MPICH_OBJ := $(MPI_SRC:%.c=$(B)/%.o)
OMPI_OBJ  := $(MPI_SRC:%.c=$(B)/openmpi/%.o)
BASELOG_OBJ := $(filter $(B)/src/base/% $(B)/src/log/%,$(LIB_OBJ))
MPI_LIBS_BUILT := $(if $(MPICH_INC),$(B)/libpangaea-mpich.so) \
                  $(if $(OMPI_INC),$(B)/libpangaea-openmpi.so)
$(MPICH_OBJ): $(B)/%.o: %.c $(MPI_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/mpi $(MPICH_INC) $(CFLAGS) -fvisibility=hidden -c $< -o $@
$(OMPI_OBJ): $(B)/openmpi/%.o: %.c $(MPI_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/mpi $(OMPI_INC) $(CFLAGS) -fvisibility=hidden -c $< -o $@
# Exports the MPI_ wrappers only (src/mpi/libpangaea-mpi.map).
$(B)/libpangaea-mpich.so: $(MPICH_OBJ) $(BASELOG_OBJ) src/mpi/libpangaea-mpi.map
	$(CC) -shared -Wl,-z,defs -Wl,--version-script=src/mpi/libpangaea-mpi.map -o $@ $(MPICH_OBJ) $(BASELOG_OBJ) $(XML_LIBS) $(MPICH_LNK) $(SYSLIBS)
$(B)/libpangaea-openmpi.so: $(OMPI_OBJ) $(BASELOG_OBJ) src/mpi/libpangaea-mpi.map
	$(CC) -shared -Wl,-z,defs -Wl,--version-script=src/mpi/libpangaea-mpi.map -o $@ $(OMPI_OBJ) $(BASELOG_OBJ) $(XML_LIBS) $(OMPI_LNK) $(SYSLIBS)
# MPI test programs (tests/programs/mpi_*.c), plain MPI programs built
# with each MPI's compiler: $(B)/tests/mpich/ and $(B)/tests/openmpi/.
MPI_PROG_SRC := $(wildcard tests/programs/mpi_*.c)
test-programs: $(if $(MPICH_INC),$(MPI_PROG_SRC:tests/programs/%.c=$(B)/tests/mpich/%)) \
               $(if $(OMPI_INC),$(MPI_PROG_SRC:tests/programs/%.c=$(B)/tests/openmpi/%))
$(B)/tests/mpich/mpi_%: tests/programs/mpi_%.c
	@mkdir -p $(@D)
	mpicc.mpich $(CFLAGS) -o $@ $<
$(B)/tests/openmpi/mpi_%: tests/programs/mpi_%.c
	@mkdir -p $(@D)
	mpicc.openmpi $(CFLAGS) -o $@ $<
# Fortran (mpi_*.f90), with each MPI's mpif90: -O0 -g, for call sites.
MPI_F_SRC := $(wildcard tests/programs/mpi_*.f90)
test-programs: $(if $(MPICH_INC),$(MPI_F_SRC:tests/programs/%.f90=$(B)/tests/mpich/%)) \
               $(if $(OMPI_INC),$(MPI_F_SRC:tests/programs/%.f90=$(B)/tests/openmpi/%))
$(B)/tests/mpich/mpi_%: tests/programs/mpi_%.f90
	@mkdir -p $(@D)
	mpif90.mpich -g -O0 -o $@ $<
$(B)/tests/openmpi/mpi_%: tests/programs/mpi_%.f90
	@mkdir -p $(@D)
	mpif90.openmpi -g -O0 -o $@ $<
# MPICH's only (Open MPI 4.1's mpi_f08 has no MPI_Count variants).
test-programs: $(if $(MPICH_INC),$(B)/tests/mpich/mpich_f08large)
$(B)/tests/mpich/mpich_f08large: tests/programs/mpich_f08large.f90
	@mkdir -p $(@D)
	mpif90.mpich -g -O0 -o $@ $<

# The test programs (one of them Fortran: gfortran) are built for the
# tests, not by `make` alone, so the demo needs no test-only package.
all: $(B)/libpangaea.so $(B)/libpangaea.a $(B)/pangaea $(B)/pangaea-coord \
     $(B)/pangaea-debugger $(B)/sor $(MPI_LIBS_BUILT)

# Hidden by default, and a version script: the library exports only the PVM
# calls it wraps (src/pvm/wrap/pg_calls.def) and pangaea.h's: the version script
# $(B)/libpangaea.map is made from src/pvm/wrap/libpangaea.map.in and that list.
$(LIB_OBJ): $(B)/%.o: %.c $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fvisibility=hidden -c $< -o $@
$(TOP_OBJ): $(B)/%.o: %.c $(TOP_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TOP_CPPFLAGS) $(CFLAGS) -c $< -o $@
# display.c embeds the page template with .incbin (pangaea -display).
$(B)/src/cli/view/display.o: src/cli/view/graph.html
$(B)/src/cli/live/live.o: src/cli/live/live.html
# filter_assets.c embeds the filters both pages use.
$(B)/src/cli/view/filter_assets.o: src/cli/view/filter.js src/cli/view/filter.css
$(COORD_OBJ): $(B)/%.o: %.c $(LIB_DEPS) $(wildcard src/pvm/coordinator/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libpangaea.map: src/pvm/wrap/libpangaea.map.in src/pvm/wrap/pg_calls.def
	@mkdir -p $(@D)
	$(CC) -E -P -x c -Isrc/pvm/wrap $< -o $@
$(B)/libpangaea.so: $(LIB_OBJ) $(B)/libpangaea.map
	$(CC) -shared -Wl,--version-script=$(B)/libpangaea.map -o $@ $(LIB_OBJ) $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
$(B)/libpangaea.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The top-level task is itself a Pangaea task (ltid 0): it links the library.
$(B)/pangaea: $(TOP_OBJ) $(B)/libpangaea.a
	$(CC) -o $@ $(TOP_OBJ) $(B)/libpangaea.a $(XML_LIBS) $(ARCHIVE_LIBS) $(PVMLIBS) $(SYSLIBS) $(MHD_LIBS)
# The coordinator is a plain PVM task; it shares only the protocol header.
$(B)/pangaea-coord: $(COORD_OBJ) $(B)/src/base/err.o $(B)/src/base/grow.o
	$(CC) -o $@ $^ $(PVMLIBS)

# The recording model, analyses and pages know nothing of PVM: their
# folders and the layers below them make their own library, and
# tests/tools/views_only.c links it without libpvm3 (tests/layers.sh also
# checks their objects use no PVM symbol).
VIEW_DIRS := src/base src/log src/cli/files src/cli/recording src/cli/analysis src/cli/view
VIEW_OBJ  := $(filter $(addprefix $(B)/,$(addsuffix /%,$(VIEW_DIRS))),$(LIB_OBJ) $(TOP_OBJ))
$(B)/libpangaea-views.a: $(VIEW_OBJ)
	rm -f $@ && ar rcs $@ $^
test-programs: $(B)/tests/views_only
$(B)/tests/views_only: tests/tools/views_only.c $(B)/libpangaea-views.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TOP_CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea-views.a $(XML_LIBS) $(SYSLIBS)

# A Fortran PVM program built with -g (libfpvm3's bindings): test_debug
# checks that its call sites name its Fortran lines.
test-programs: $(B)/tests/fortran_self
$(B)/tests/fortran_self: tests/programs/fortran_self.f
	@mkdir -p $(@D)
	gfortran -g -O0 -I/usr/include -o $@ $< -lfpvm3 $(PVMLIBS)

# PVM_DEBUGGER for `pangaea -replay -debug` (src/cli/run/debug.c).
$(B)/pangaea-debugger: src/cli/run/pangaea-debugger.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# The demo, built the instrumented way: pangaea.h and -lpangaea ahead of -lpvm3.
$(B)/sor: examples/sor/sor.c include/pangaea.h $(B)/libpangaea.so
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(B) -Wl,-rpath,$(abspath $(B)) -lpangaea $(PVMLIBS) -lm

# Test programs: tests/programs/*.c.  Those named plain_* are built against
# PVM only (never seen Pangaea: they run preloaded); the others link -lpangaea.
PROG_SRC := $(filter-out tests/programs/mpi_%,$(wildcard tests/programs/*.c))
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
# pvm_api prints src/pvm/wrap/pg_api.def (test_pvm_api.sh, the README's list).
test-programs: $(B)/tests/pvm_api
$(B)/tests/pvm_api: tests/tools/pvm_api.c src/pvm/wrap/pg_api.def
	@mkdir -p $(@D)
	$(CC) -Isrc/pvm/wrap $(CFLAGS) -o $@ $<
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
# At -O1, as the sanitizers' documentation advises: it compiles in two
# thirds of -O2's time (a quarter of `make check`'s build), and -O2 had
# folded away a pointer formed past its object that UBSan reports at -O1.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1
SAN_B     := $(B)/asan
SAN_OBJ   := $(LIB_SRC:%.c=$(SAN_B)/%.o)
$(SAN_OBJ): $(SAN_B)/%.o: %.c $(LIB_DEPS)
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
SAN_TOP_OBJ := $(filter-out $(SAN_B)/src/cli/main/main.o,$(TOP_SRC:%.c=$(SAN_B)/%.o))
$(SAN_TOP_OBJ): $(SAN_B)/%.o: %.c $(TOP_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TOP_CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(SAN_B)/src/cli/view/display.o: src/cli/view/graph.html
$(SAN_B)/src/cli/live/live.o: src/cli/live/live.html
$(SAN_B)/src/cli/view/filter_assets.o: src/cli/view/filter.js src/cli/view/filter.css
$(SAN_B)/libtop.a: $(SAN_TOP_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TOP_CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a $(CHECK_LIBS) $(XML_LIBS) $(ARCHIVE_LIBS) $(PVMLIBS) $(SYSLIBS) $(MHD_LIBS)

# Unit tests of the runtime without a pvmd (test_runtime_*.c) link the
# fake libpvm3 of tests/unit/fake_pvm.c: its pvm_* come before libpvm3's.
FAKE_UNITS := $(patsubst tests/unit/%.c,$(B)/unit/%,$(wildcard tests/unit/test_runtime_*.c))
$(FAKE_UNITS): $(B)/unit/%: tests/unit/%.c tests/unit/fake_pvm.c $(wildcard tests/unit/*.h) $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TOP_CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -o $@ $< tests/unit/fake_pvm.c $(SAN_B)/libtop.a $(SAN_B)/libpangaea.a $(CHECK_LIBS) $(XML_LIBS) $(ARCHIVE_LIBS) $(PVMLIBS) $(SYSLIBS) $(MHD_LIBS)

# Check's timeouts (tcase_set_timeout) are there to end a test that hangs;
# they count wall time, which a loaded machine stretches (make check runs
# the unit tests beside the e2e tests on two cores): times 5 unless
# CK_TIMEOUT_MULTIPLIER says otherwise.
unit: $(UNITS)
	@set -e; for t in $(UNITS); do echo "== $$t"; \
	    CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-5} $$t; done

e2e: all test-programs
	@bash tests/e2e/run_all.sh

# The files form layers without a cycle (tests/layers.sh reads the objects).
layers: all
	@bash tests/layers.sh

# The build the e2e tests need uses every core; the layers are checked;
# then the e2e tests start (side by side themselves: tests/e2e/run_all.sh)
# and the sanitized unit tests are built and run beside them, one compile
# at a time (-j2: the e2e run holds the other slot), in the CPU the e2e
# tests leave while they wait on daemons and timeouts (about a seventh of
# two cores), instead of before them (each prints its report whole: a
# suite's, a test file's).
NPROC := $(shell nproc 2>/dev/null || echo 2)
check:
	@$(MAKE) --no-print-directory -j$(NPROC) all test-programs
	@$(MAKE) --no-print-directory layers
	@$(MAKE) --no-print-directory -j2 unit e2e

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
# The stream and ping-pong benchmarks are also tests' programs
# (test_replay_cost.sh, test_replay_wait.sh).
test-programs: $(B)/bench/stream $(B)/bench/pingpong
$(B)/bench/sor: examples/sor/sor.c include/pangaea.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iinclude -o $@ $< $(PVMLIBS) -lm
$(B)/bench/logio: bench/micro/logio.c $(B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
# The MPI benchmark (bench/mpi/mpibench.c: ping-pong and message rate of
# two ranks), a plain MPI program built with each MPI's mpicc where that
# MPI is installed; bench/mpi.sh runs it raw and under pangaea
# (MPI_BENCH_FLAGS, e.g. --quick).
MPI_BENCH_BINS := $(if $(MPICH_INC),$(B)/bench/mpich/mpibench) \
                  $(if $(OMPI_INC),$(B)/bench/openmpi/mpibench)
$(B)/bench/mpich/mpibench: bench/mpi/mpibench.c
	@mkdir -p $(@D)
	mpicc.mpich $(CFLAGS) -o $@ $<
$(B)/bench/openmpi/mpibench: bench/mpi/mpibench.c
	@mkdir -p $(@D)
	mpicc.openmpi $(CFLAGS) -o $@ $<
bench-programs: $(BENCH_BINS) $(MPI_BENCH_BINS)
bench: all bench-programs test-programs
	@bash bench/run.sh $(BENCH_FLAGS)
	@bash bench/mpi.sh $(MPI_BENCH_FLAGS)
	@bash bench/views.sh $(VIEWS_FLAGS)
	@bash bench/pages.sh $(PAGES_FLAGS)

# make install PREFIX=/usr/local [DESTDIR=/stage] [LIBDIR=...]; make uninstall
# (the same variables).  The layout is what src/cli/files/paths.c looks for
# beside the installed `pangaea`: PREFIX/bin/pangaea, PREFIX/lib/pangaea/
# (the coordinator, a link to the library it preloads into tasks, and the
# MPI libraries that were built),
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
             $(MANDIR)/man1/pangaea.1 $(MANDIR)/man3/pangaea.3 \
             $(PKGLIBDIR)/libpangaea-mpich.so $(PKGLIBDIR)/libpangaea-openmpi.so
$(B)/pangaea.pc: pangaea.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< >$@
install: $(B)/libpangaea.so $(B)/libpangaea.a $(B)/pangaea $(B)/pangaea-coord $(MPI_LIBS_BUILT)
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
	for l in $(MPI_LIBS_BUILT); do install -m 755 $$l $(DESTDIR)$(PKGLIBDIR)/; done
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
FUZZ_SRC  := $(wildcard src/log/*.c) src/base/err.c
$(B)/fuzz/replay_corpus: tests/fuzz/replay_corpus.c tests/fuzz/fuzz_logr.c $(SAN_B)/libpangaea.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -o $@ $(filter %.c,$^) $(SAN_B)/libpangaea.a $(XML_LIBS) $(PVMLIBS) $(SYSLIBS)
test-programs: $(B)/fuzz/replay_corpus
$(B)/fuzz/fuzz_logr: tests/fuzz/fuzz_logr.c $(FUZZ_SRC) $(wildcard src/log/*.h src/base/*.h)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^) $(XML_LIBS)
fuzz: $(B)/fuzz/fuzz_logr
	@bash tests/fuzz/run.sh $< $(FUZZ_TIME)
.PHONY: fuzz
