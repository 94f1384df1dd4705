/*
 * pcoll-ddt: mpiexec -n 2 pcoll-ddt [--n N] [--stride LIST] [--type NAME]
 * [--reps N] [--csv FILE].  Ranks 0 and 1 run the benchmarks (any further
 * ranks wait); rank 0 prints.  See ddt.h for the files and docs/datatypes.md
 * for how to read the output.
 */
#include <stdlib.h>
#include <string.h>

#include "ddt.h"

/* Buffers for one stride: every layout spans less than n * max(s, 2) + 2
 * elements. */
static void ctx_make(ddt_ctx_t *c, MPI_Comm comm, const ddt_opts_t *o, int stride)
{
    MPI_Aint lb;
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    c->n = o->n;
    c->stride = stride;
    c->reps = o->reps;
    c->base = o->type;
    MPI_Type_get_extent(o->type, &lb, &c->ext);
    MPI_Type_size(o->type, &c->size);
    c->span = ((size_t)o->n * (stride < 2 ? 2 : stride) + 8) * (size_t)c->ext;
    c->packed_bytes = (size_t)o->n * (size_t)c->size * 2 + 65536;
    c->src = calloc(c->span, 1);
    c->dst = calloc(c->span, 1);
    c->packed = calloc(c->packed_bytes, 1);
    for (size_t i = 0; i < c->span; i++)
        c->src[i] = (char)(i * 131 + 7);
}

static void ctx_free(ddt_ctx_t *c)
{
    free(c->src);
    free(c->dst);
    free(c->packed);
}

/* Every stride; returns 1 when a datatype moved the wrong data. */
static int run_all(MPI_Comm comm, const ddt_opts_t *o, FILE *csv)
{
    int bad = 0, rank;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < o->nstrides; i++) {
        static ddt_run_t run;
        ddt_ctx_t c;
        ctx_make(&c, comm, o, o->strides[i]);
        bad |= ddt_run_stride(&c, &run);
        if (rank == 0) {
            ddt_report(stdout, o, &run);
            fflush(stdout);
        }
        if (rank == 0 && csv)
            ddt_csv(csv, o, &run, i == 0);
        ctx_free(&c);
    }
    return bad;
}

int main(int argc, char **argv)
{
    ddt_opts_t o;
    char err[256];
    int rank, size, status = 0;
    FILE *csv = NULL;
    MPI_Comm pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ddt_options_parse(argc, argv, &o, err, sizeof err) != 0 || o.help || size < 2) {
        if (rank == 0 && !o.help)
            fprintf(stderr, "pcoll-ddt: %s\n", size < 2 ? "needs 2 processes" : err);
        if (rank == 0)
            ddt_usage(o.help ? stdout : stderr);
        MPI_Finalize();
        return o.help ? 0 : 2;
    }
    if (rank == 0 && o.csv && !(csv = fopen(o.csv, "w")))
        fprintf(stderr, "pcoll-ddt: cannot write %s\n", o.csv);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (pair != MPI_COMM_NULL) {
        status = run_all(pair, &o, csv);
        MPI_Comm_free(&pair);
    }
    if (csv)
        fclose(csv);
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
