/* main.c -- pcoll-fft3d: time forward r2c + backward c2r 3D FFT pairs on a
 * pencil decomposition, split into local FFT and transpose time. */
#include <stdio.h>

#include "fft3d.h"

#ifndef FFT3D_HAVE_MULTI
#define FFT3D_HAVE_MULTI 0
#endif

/* Exit status 2 for bad arguments (message on rank 0). */
static int usage_error(int rank, const char *msg)
{
    if (rank == 0) {
        fprintf(stderr, "pcoll-fft3d: %s\n", msg);
        fft3d_usage(stderr);
    }
    return 2;
}

/* Time o->iters forward+backward pairs of mode after one untimed pair;
 * rank 0 prints the slowest rank's average split. */
static int run_timed(fft3d_t *f, const fft3d_opts_t *o, int mode, int rank)
{
    double t[3], tmax[3];
    fft3d_fill(f);
    if (fft3d_forward(f, mode) || fft3d_backward(f, mode))
        return 1;
    f->t_fft = f->t_xpose = 0;
    MPI_Barrier(f->g->grid);
    double t0 = MPI_Wtime();
    for (int i = 0; i < o->iters; i++)
        if (fft3d_forward(f, mode) || fft3d_backward(f, mode))
            return 1;
    t[0] = (MPI_Wtime() - t0) / o->iters;
    t[1] = f->t_fft / o->iters;
    t[2] = f->t_xpose / o->iters;
    MPI_Reduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, 0, f->g->grid);
    if (rank == 0)
        printf("pcoll-fft3d: n %dx%dx%d grid %dx%d transpose %s iters %d\n"
               "time per forward+backward pair (max over ranks): total %.3f ms, "
               "fft %.3f ms, transpose %.3f ms\n",
               o->n[0], o->n[1], o->n[2], o->pr, o->pc, fft3d_mode_name(mode), o->iters,
               1e3 * tmax[0], 1e3 * tmax[1], 1e3 * tmax[2]);
    return 0;
}

/* The modes to plan: the one asked for, all of them for --transpose all
 * and for --check (which compares them). */
static void wanted_modes(const fft3d_opts_t *o, int want[FFT3D_NMODES])
{
    for (int m = 0; m < FFT3D_NMODES; m++)
        want[m] = (m != FFT3D_MULTI || FFT3D_HAVE_MULTI) &&
                  (m == o->mode || o->mode == FFT3D_ALL || o->check);
}

static int run(const fft3d_opts_t *opts, int rank)
{
    fft3d_opts_t o = *opts;
    fft3d_grid_t g;
    fft3d_t f = {0};
    char msg[256];
    int want[FFT3D_NMODES], rc;
    int first = o.mode == FFT3D_ALL ? FFT3D_NATIVE : o.mode;
    if (o.mode == FFT3D_MULTI && !FFT3D_HAVE_MULTI)
        return usage_error(rank, "--transpose multi: pcoll_alltoall_multi_init is not "
                                 "available in this build");
    if ((rc = fft3d_grid_init(&g, &o, MPI_COMM_WORLD, msg, sizeof msg)))
        return usage_error(rank, msg);
    o.pr = g.pr;
    o.pc = g.pc;
    wanted_modes(&o, want);
    if ((rc = fft3d_init(&f, &g, want, msg, sizeof msg)) && rank == 0)
        fprintf(stderr, "pcoll-fft3d: %s\n", msg);
    if (rc == 0 && o.check)
        rc = fft3d_check(&f, first);
    if (rc == 0 && o.dump)
        rc = fft3d_dump(&f, first, o.dump);
    for (int m = 0; m < FFT3D_NMODES && rc == 0; m++)
        if (m == o.mode || (o.mode == FFT3D_ALL && f.have[m]))
            rc = run_timed(&f, &o, m, rank);
    fft3d_free(&f);
    fft3d_grid_free(&g);
    return rc;
}

int main(int argc, char **argv)
{
    fft3d_opts_t o;
    char msg[256];
    int rank, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = fft3d_parse(argc, argv, &o, msg, sizeof msg);
    if (rc == 1 && rank == 0)
        fft3d_usage(stdout);
    if (rc == 2)
        usage_error(rank, msg);
    if (rc == 0)
        rc = run(&o, rank);
    else if (rc == 1)
        rc = 0;
    MPI_Finalize();
    return rc;
}
