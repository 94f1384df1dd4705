/* check.c -- pcoll-fft3d --check: the distributed forward transform against
 * a serial FFTW r2c of the whole grid (N <= 64), the round trip, and the
 * spectra of all transpose forms compared bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

#define SERIAL_MAX_N 64
#define FORWARD_TOL 1e-12
#define ROUNDTRIP_TOL 1e-13

/* The test input: a hash of the global coordinates in [-1, 1). */
static double input(int x, int y, int z)
{
    unsigned h = (unsigned)x * 73856093u ^ (unsigned)y * 19349663u ^ (unsigned)z * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 20001u) / 10000.0 - 1.0;
}

void fft3d_fill(fft3d_t *f)
{
    const fft3d_grid_t *g = f->g;
    for (int z = 0; z < g->nzA; z++)
        for (int y = 0; y < g->nyA; y++)
            for (int x = 0; x < g->n[0]; x++)
                f->real[((size_t)z * g->nyA + y) * g->n[0] + x] =
                    input(x, g->ys_A + y, g->zs + z);
}

static size_t c_size(const fft3d_grid_t *g)
{
    return (size_t)g->kxB * g->nyC * g->n[2];
}

/* Relative max error of rank q's C block (kx, y, z) against the serial
 * spectrum out[z][y][kx]; *ref_max gets max |out| over the block. */
static double block_error(const fft3d_grid_t *g, int q, const fftw_complex *blk,
                          const fftw_complex *out, double *ref_max)
{
    int r = q / g->pc, c = q % g->pc, nxc = g->nxc, n1 = g->n[1], n2 = g->n[2];
    int nkx = fft3d_block_size(nxc, g->pc, c), kxs = fft3d_block_start(nxc, g->pc, c);
    int ny = fft3d_block_size(n1, g->pr, r), ys = fft3d_block_start(n1, g->pr, r);
    double err = 0;
    for (int kx = 0; kx < nkx; kx++)
        for (int y = 0; y < ny; y++)
            for (int z = 0; z < n2; z++) {
                const double *d = blk[((size_t)kx * ny + y) * n2 + z];
                const double *s = out[((size_t)z * n1 + ys + y) * nxc + kxs + kx];
                err = fmax(err, hypot(d[0] - s[0], d[1] - s[1]));
                *ref_max = fmax(*ref_max, hypot(s[0], s[1]));
            }
    return err;
}

/* Rank 0: the serial r2c of the whole input against every rank's block. */
static double serial_error(const fft3d_grid_t *g, const fftw_complex *all, const int *counts,
                           const int *displs)
{
    const int *n = g->n;
    size_t nr = (size_t)n[0] * n[1] * n[2];
    double *in = fftw_alloc_real(nr), err = 0, ref = 0;
    fftw_complex *out = fftw_alloc_complex((size_t)g->nxc * n[1] * n[2]);
    for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++)
            for (int x = 0; x < n[0]; x++)
                in[((size_t)z * n[1] + y) * n[0] + x] = input(x, y, z);
    fftw_plan p = fftw_plan_dft_r2c_3d(n[2], n[1], n[0], in, out, FFTW_ESTIMATE);
    fftw_execute(p);
    for (int q = 0; q < g->pr * g->pc; q++)
        if (counts[q])
            err = fmax(err, block_error(g, q, all + displs[q] / 2, out, &ref));
    fftw_destroy_plan(p);
    fftw_free(in);
    fftw_free(out);
    return ref > 0 ? err / ref : err;
}

/* Gather the spectrum on rank 0 and compare it there; -1 on other ranks. */
static double forward_error(fft3d_t *f)
{
    const fft3d_grid_t *g = f->g;
    int P = g->pr * g->pc, rank, mine = (int)(2 * c_size(g));
    double err = -1;
    MPI_Comm_rank(g->grid, &rank);
    int *counts = malloc(2 * P * sizeof *counts), *displs = counts + P;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, g->grid);
    fftw_complex *all = NULL;
    if (rank == 0) {
        displs[0] = 0;
        for (int q = 1; q < P; q++)
            displs[q] = displs[q - 1] + counts[q - 1];
        all = fftw_alloc_complex((size_t)(displs[P - 1] + counts[P - 1]) / 2);
    }
    MPI_Gatherv(f->c, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, g->grid);
    if (rank == 0)
        err = serial_error(g, all, counts, displs);
    fftw_free(all);
    free(counts);
    return err;
}

/* max |backward(forward(in)) / N - in| / max |in| over all ranks. */
static double roundtrip_error(fft3d_t *f, int mode)
{
    const fft3d_grid_t *g = f->g;
    size_t nr = (size_t)g->nzA * g->nyA * g->n[0];
    double scale = 1.0 / ((double)g->n[0] * g->n[1] * g->n[2]), e[2] = {0, 0}, gl[2];
    double *in = malloc(nr * sizeof *in);
    fft3d_fill(f);
    memcpy(in, f->real, nr * sizeof *in);
    if (fft3d_forward(f, mode) || fft3d_backward(f, mode))
        e[0] = INFINITY;
    for (size_t i = 0; i < nr; i++) {
        e[0] = fmax(e[0], fabs(f->real[i] * scale - in[i]));
        e[1] = fmax(e[1], fabs(in[i]));
    }
    MPI_Allreduce(e, gl, 2, MPI_DOUBLE, MPI_MAX, g->grid);
    free(in);
    return gl[1] > 0 ? gl[0] / gl[1] : gl[0];
}

/* 1 on every rank if the spectrum of every planned mode equals ref's bits. */
static int modes_agree(fft3d_t *f, const fftw_complex *ref, int *n_modes)
{
    int same = 1, all;
    *n_modes = 0;
    for (int m = 0; m < FFT3D_NMODES; m++) {
        if (!f->have[m])
            continue;
        ++*n_modes;
        fft3d_fill(f);
        if (fft3d_forward(f, m) || memcmp(f->c, ref, c_size(f->g) * sizeof *ref) != 0)
            same = 0;
    }
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, f->g->grid);
    return all;
}

int fft3d_check(fft3d_t *f, int mode)
{
    const fft3d_grid_t *g = f->g;
    int rank, fail = 0, n_modes, small = g->n[0] <= SERIAL_MAX_N && g->n[1] <= SERIAL_MAX_N &&
                                     g->n[2] <= SERIAL_MAX_N;
    MPI_Comm_rank(g->grid, &rank);
    fft3d_fill(f);
    int rc = fft3d_forward(f, mode);
    fftw_complex *ref = fftw_alloc_complex(c_size(g) ? c_size(g) : 1);
    memcpy(ref, f->c, c_size(g) * sizeof *ref);
    double ferr = small ? forward_error(f) : -1;
    int agree = modes_agree(f, ref, &n_modes);
    double rerr = roundtrip_error(f, mode);
    fftw_free(ref);
    if (rank == 0) {
        if (small) {
            fail |= !(ferr < FORWARD_TOL);
            printf("check forward vs serial FFTW: rel error %.3e (< %.0e) %s\n", ferr,
                   FORWARD_TOL, ferr < FORWARD_TOL ? "ok" : "FAIL");
        } else {
            printf("check forward vs serial FFTW: skipped (N > %d)\n", SERIAL_MAX_N);
        }
        fail |= !(rerr < ROUNDTRIP_TOL) || !agree || rc;
        printf("check round trip: rel error %.3e (< %.0e) %s\n", rerr, ROUNDTRIP_TOL,
               rerr < ROUNDTRIP_TOL ? "ok" : "FAIL");
        printf("check %d transpose modes give bitwise equal spectra: %s\n", n_modes,
               agree ? "ok" : "FAIL");
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, g->grid);
    return fail;
}
