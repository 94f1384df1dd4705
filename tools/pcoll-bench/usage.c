/*
 * The usage message (--help, and on stderr after a bad option).
 */
#include "bench.h"

void bench_usage(FILE *out)
{
    fputs("usage: mpiexec -n P pcoll-bench [options]\n"
          "\n"
          "Checks, then times pcoll's algorithms against the native MPI collective.\n"
          "\n"
          "  --coll NAME          collective (default alltoall):\n", out);
    bench_coll_print(out);
    fputs("  --algorithms LIST    comma-separated pcoll algorithms, or all (default;\n"
          "                       the gpu_ ones only with --gpu)\n"
          "  --sizes LIST         bytes per block (per destination for alltoall):\n"
          "                       N, N:M (doubling), N:M:xF, N:M:+D, comma-separated;\n"
          "                       k and m suffixes (default 8:65536:x4)\n"
          "  --mode MODE          blocking: one-shot pcoll call vs the MPI call;\n"
          "                       persistent (default): start+wait of a plan made once\n"
          "                       (creation reported apart) vs the MPI call and MPI-4's\n"
          "                       *_init; nocomm: plan creation + destruction alone\n"
          "  --pattern P          uniform (default), random, sparse, powerlaw,\n"
          "                       normal, shifting (alltoallv; shifting: random\n"
          "                       counts that change every call)\n"
          "                       (irregular collectives only)\n"
          "  --reps N             timed repetitions per point (default: as many as fit\n"
          "                       in --max-time, 10 to 100)\n"
          "  --max-time S         seconds per point for the default reps (0.2)\n"
          "  --warmup N           untimed calls before timing (default 5)\n"
          "  --native-sweep       also time the MPI call under each algorithm the MPI\n"
          "                       can be forced to use (relaunches itself through\n"
          "                       $PCOLL_BENCH_MPIEXEC, else mpiexec from PATH)\n"
          "  --choice             time nothing: per size, print the algorithm auto's\n"
          "                       plan takes (--mode nocomm: made without communicating)\n"
          "  --overlap            per size and algorithm, a persistent plan's time\n"
          "                       alone, a computation as long alone, both together\n"
          "                       (start, compute, wait) and the overlap % (OSU's);\n"
          "                       PCOLL_PROGRESS=thread for pcoll's progress thread\n"
          "  --csv FILE           write every row as CSV\n"
          "  --json FILE          write every row as JSON\n"
          "  --plot FILE.png      plot time vs size with tools/pcoll-plot.py\n"
          "                       (python: $PCOLL_PYTHON, else python3)\n"
          "  --progress           progress lines on stderr (automatic on a terminal)\n"
          "  --sequential         time each row's repetitions in one block (default:\n"
          "                       interleaved, every row once per round, so that noise\n"
          "                       hits the native call and pcoll alike)\n"
          "  --gpu                buffers in GPU memory (alltoall, reduce_scatter_block of\n"
          "                       MPI_INT sums): pcoll's rows against\n"
          "                       what a program does without pcoll (copy to the host,\n"
          "                       the MPI call, copy back; with PCOLL_BENCH_GPU_DIRECT=1\n"
          "                       and a CUDA-aware MPI, the MPI call on device pointers)\n"
          "  --help               this message\n"
          "\n"
          "Exit status: 0, 1 if a result was wrong or a call failed, 2 for bad options.\n"
          "docs/benchmarking.md explains the columns and the statistics.\n",
          out);
}
