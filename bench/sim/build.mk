# bench/sim/build.mk -- pcoll-bench for SimGrid SMPI: every library source
# (src/**/*.c), the benchmark (tools/pcoll-bench/*.c) and smpi_compat.c
# compiled with smpicc and linked into ONE executable, so that SMPI
# privatizes all of pcoll's static state (keyvals, context list, memory
# counters, last-error buffer) per simulated rank; a shared libpcoll would
# need --cfg=smpi/privatize-libs.
#
#   make -f bench/sim/build.mk [SIM_DIR=build/sim] [SIM_PROGRAM=...]
#
# Called by `make sim` (top-level Makefile); bench/sim/run.sh runs the result.
# SIM_PROGRAM: the benchmark's sources (default tools/pcoll-bench/*.c; any
# single MPI program of pcoll works, e.g. examples/demo.c, or
# bench/sim/predict.c, the cost model's predictions, which includes the
# library's internal headers: programs see src/ too).

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))/../..
ROOT := $(abspath $(ROOT))
SIM_DIR ?= $(ROOT)/build/sim
SMPICC ?= smpicc
SIM_CFLAGS ?= -O2 -g
SIM_PROGRAM ?= $(wildcard $(ROOT)/tools/pcoll-bench/*.c)

# src/pmpi is the drop-in library (MPI's own names), not part of pcoll.
LIB_SRC := $(shell find $(ROOT)/src -name '*.c' -not -path '*/src/pmpi/*' | sort)
LIB_OBJ := $(patsubst $(ROOT)/%.c,$(SIM_DIR)/obj/%.o,$(LIB_SRC))
PROG_OBJ := $(patsubst $(ROOT)/%.c,$(SIM_DIR)/obj/%.o,$(SIM_PROGRAM))
COMPAT_OBJ := $(SIM_DIR)/obj/bench/sim/smpi_compat.o

# The symbols smpi_compat.c interposes (see its header comment).
WRAP := MPI_Comm_set_attr MPI_Finalize MPI_Send_init MPI_Start MPI_Startall MPI_Request_free \
  MPI_Cart_create MPI_Topo_test MPI_Dist_graph_create MPI_Dist_graph_create_adjacent \
  MPI_Dist_graph_neighbors_count MPI_Dist_graph_neighbors MPI_Neighbor_alltoallv
comma := ,
empty :=
space := $(empty) $(empty)
WRAP_FLAGS := -Wl,$(subst $(space),$(comma),$(addprefix --wrap=,$(WRAP)))

CFLAGS_ALL := -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L $(SIM_CFLAGS) -MMD -MP \
  -I$(ROOT)/include

$(SIM_DIR)/pcoll-bench: $(LIB_OBJ) $(PROG_OBJ) $(COMPAT_OBJ)
	$(SMPICC) $(SIM_CFLAGS) $^ $(WRAP_FLAGS) -lm -o $@

$(SIM_DIR)/obj/src/%.o: $(ROOT)/src/%.c
	@mkdir -p $(dir $@)
	$(SMPICC) $(CFLAGS_ALL) -DPCOLL_BUILDING -I$(ROOT)/src -c $< -o $@

$(SIM_DIR)/obj/%.o: $(ROOT)/%.c
	@mkdir -p $(dir $@)
	$(SMPICC) $(CFLAGS_ALL) -I$(dir $<) -I$(ROOT)/src \
	  -DPCOLL_BENCH_PLOT_SCRIPT='"$(ROOT)/tools/pcoll-plot.py"' -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(PROG_OBJ:.o=.d) $(COMPAT_OBJ:.o=.d)
