/* spectrum.c -- the distributed spectrum (layout C of fft3d.h) gathered on
 * rank 0 into the global array [kz][ky][kx], kx fastest (FFTW's r2c layout of
 * (n2, n1, n0)), and written to a file for outside comparisons (--dump). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "fft3d.h"

/* Copy rank q's C block [kx][y][z] into the global array g_out[z][y][kx]. */
static void place_block(const fft3d_grid_t *g, int q, const fftw_complex *blk,
                        fftw_complex *g_out)
{
    int r = q / g->pc, c = q % g->pc, nxc = g->nxc, n1 = g->n[1], n2 = g->n[2];
    int nkx = fft3d_block_size(nxc, g->pc, c), kxs = fft3d_block_start(nxc, g->pc, c);
    int ny = fft3d_block_size(n1, g->pr, r), ys = fft3d_block_start(n1, g->pr, r);
    for (int kx = 0; kx < nkx; kx++)
        for (int y = 0; y < ny; y++)
            for (int z = 0; z < n2; z++) {
                const double *s = blk[((size_t)kx * ny + y) * n2 + z];
                double *d = g_out[((size_t)z * n1 + ys + y) * nxc + kxs + kx];
                d[0] = s[0];
                d[1] = s[1];
            }
}

/* Rank 0: every block of the gathered buffer into the global array. */
static fftw_complex *assemble(const fft3d_grid_t *g, const fftw_complex *all,
                              const int *counts, const int *displs)
{
    fftw_complex *out = fftw_alloc_complex((size_t)g->nxc * g->n[1] * g->n[2]);
    for (int q = 0; out && q < g->pr * g->pc; q++)
        if (counts[q])
            place_block(g, q, all + displs[q] / 2, out);
    return out;
}

int fft3d_gather_spectrum(const fft3d_t *f, fftw_complex **out)
{
    const fft3d_grid_t *g = f->g;
    int P = g->pr * g->pc, rank, ok = 1;
    int mine = 2 * g->kxB * g->nyC * g->n[2];
    *out = NULL;
    if (2.0 * g->nxc * g->n[1] * g->n[2] > INT_MAX)
        return 1;
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
        ok = (*out = assemble(g, all, counts, displs)) != NULL;
    fftw_free(all);
    free(counts);
    MPI_Bcast(&ok, 1, MPI_INT, 0, g->grid);
    return !ok;
}

int fft3d_dump(fft3d_t *f, int mode, const char *path)
{
    fftw_complex *all;
    int rank, rc;
    MPI_Comm_rank(f->g->grid, &rank);
    fft3d_fill(f);
    if ((rc = fft3d_forward(f, mode)) != 0 || (rc = fft3d_gather_spectrum(f, &all)) != 0)
        return 1;
    if (rank == 0) {
        size_t n = (size_t)f->g->nxc * f->g->n[1] * f->g->n[2];
        FILE *fp = fopen(path, "wb");
        rc = !fp || fwrite(all, sizeof *all, n, fp) != n;
        rc |= fp && fclose(fp) != 0;
        if (rc)
            fprintf(stderr, "pcoll-fft3d: cannot write %s\n", path);
        else
            printf("spectrum (%s, hash input) written to %s: %zu complex doubles, "
                   "[kz][ky][kx] with kx fastest\n", fft3d_mode_name(mode), path, n);
    }
    fftw_free(all);
    MPI_Bcast(&rc, 1, MPI_INT, 0, f->g->grid);
    return rc;
}
