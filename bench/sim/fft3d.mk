# bench/sim/fft3d.mk -- pcoll-fft3d (apps/fft3d) for SimGrid SMPI: build.mk's
# recipe (pcoll's sources, the program and smpi_compat.c compiled with
# smpicc into ONE executable, so that SMPI privatizes pcoll's static state
# per simulated rank) applied to the FFT application, linked with FFTW3.
# FFTW stays a shared library, used by all simulated ranks of the one
# process: its planner state is shared, which is harmless because simulated
# ranks switch only inside MPI calls.
#
#   make -f bench/sim/fft3d.mk [SIM_DIR=build/sim-fft3d]
#
# Called by `make sim-fft` (top-level Makefile), which also runs it; see
# docs/fft3d.md "Simulated runs".  A directory of its own keeps it apart
# from `make sim-build`.

FFT_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
SIM_DIR ?= $(FFT_ROOT)/build/sim-fft3d
SIM_PROGRAM := $(wildcard $(FFT_ROOT)/apps/fft3d/*.c)
include $(FFT_ROOT)/bench/sim/build.mk

FFTW_CFLAGS := $(shell pkg-config --cflags fftw3 2>/dev/null)
FFTW_LIBS := $(or $(shell pkg-config --libs fftw3 2>/dev/null),-lfftw3)
# The multiple all-to-all is used when the public header declares it (as
# apps/CMakeLists.txt decides).
HAVE_MULTI := $(shell grep -l pcoll_alltoall_multi_init $(FFT_ROOT)/include/pcoll.h)
FFT3D_DEFS := $(if $(HAVE_MULTI),-DFFT3D_HAVE_MULTI=1)

.DEFAULT_GOAL := $(SIM_DIR)/pcoll-fft3d
$(PROG_OBJ): CFLAGS_ALL += $(FFT3D_DEFS) $(FFTW_CFLAGS)

$(SIM_DIR)/pcoll-fft3d: $(LIB_OBJ) $(PROG_OBJ) $(COMPAT_OBJ)
	$(SMPICC) $(SIM_CFLAGS) $^ $(WRAP_FLAGS) $(FFTW_LIBS) -lm -o $@
