/* fft.c -- the distributed 3D r2c/c2r FFT: local 1D FFTs with FFTW (planned
 * once, FFTW_ESTIMATE) between the two transposes of fft3d.h's layouts.
 * Forward: r2c along x (A), transpose 1, c2c along y (B), transpose 2, c2c
 * along z (C).  Backward runs the same steps in reverse, unnormalised. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "fft3d.h"

#define BS(n, p, i) fft3d_block_size(n, p, i)
#define BST(n, p, i) fft3d_block_start(n, p, i)

static fft3d_box_t box(int n0, int n1, int n2, ptrdiff_t s0, ptrdiff_t s1, ptrdiff_t s2,
                       ptrdiff_t off)
{
    return (fft3d_box_t){{n0, n1, n2}, {s0, s1, s2}, off};
}

/* Transpose 1 (row, peer i = column index): message [z][y of the A side's
 * block][kx of the B side's block]. */
static void boxes_t1(const fft3d_grid_t *g, fft3d_box_t *bx, fft3d_box_t *by)
{
    for (int i = 0; i < g->pc; i++) {
        bx[i] = box(g->nzA, g->nyA, BS(g->nxc, g->pc, i), (ptrdiff_t)g->nyA * g->nxc, g->nxc,
                    1, BST(g->nxc, g->pc, i));
        by[i] = box(g->nzA, BS(g->n[1], g->pc, i), g->kxB, (ptrdiff_t)g->kxB * g->n[1], 1,
                    g->n[1], BST(g->n[1], g->pc, i));
    }
}

/* Transpose 2 (column, peer i = row index): message [z of the B side's
 * block][kx][y of the C side's block]. */
static void boxes_t2(const fft3d_grid_t *g, fft3d_box_t *bx, fft3d_box_t *by)
{
    for (int i = 0; i < g->pr; i++) {
        bx[i] = box(g->nzA, g->kxB, BS(g->n[1], g->pr, i), (ptrdiff_t)g->kxB * g->n[1],
                    g->n[1], 1, BST(g->n[1], g->pr, i));
        by[i] = box(BS(g->n[2], g->pr, i), g->kxB, g->nyC, 1, (ptrdiff_t)g->nyC * g->n[2],
                    g->n[2], BST(g->n[2], g->pr, i));
    }
}

static int alloc_arrays(fft3d_t *f)
{
    const fft3d_grid_t *g = f->g;
    size_t na = (size_t)g->nzA * g->nyA, nb = (size_t)g->nzA * g->kxB * g->n[1];
    size_t nc = (size_t)g->kxB * g->nyC * g->n[2];
    size_t nw1 = (size_t)g->pc * f->blk1, nw2 = (size_t)g->pr * f->blk2;
    size_t nw = nw1 > nw2 ? nw1 : nw2;
    f->real = fftw_alloc_real(na * g->n[0]);
    f->a = fftw_alloc_complex(na * g->nxc);
    f->b = fftw_alloc_complex(nb);
    f->c = fftw_alloc_complex(nc);
    f->sbuf = fftw_alloc_complex(nw);
    f->rbuf = fftw_alloc_complex(nw);
    if (!f->real || !f->a || !f->b || !f->c || !f->sbuf || !f->rbuf)
        return 1;
    /* Padding of the multi messages is sent too: give it defined values. */
    for (size_t i = 0; i < nw; i++)
        f->sbuf[i][0] = f->sbuf[i][1] = f->rbuf[i][0] = f->rbuf[i][1] = 0.0;
    return 0;
}

static void plan_ffts(fft3d_t *f)
{
    const fft3d_grid_t *g = f->g;
    int hx = g->nzA * g->nyA, hy = g->nzA * g->kxB, hz = g->kxB * g->nyC;
    const int *n = g->n;
    f->fx = fftw_plan_many_dft_r2c(1, &n[0], hx, f->real, NULL, 1, n[0], f->a, NULL, 1,
                                   g->nxc, FFTW_ESTIMATE);
    f->bx = fftw_plan_many_dft_c2r(1, &n[0], hx, f->a, NULL, 1, g->nxc, f->real, NULL, 1,
                                   n[0], FFTW_ESTIMATE);
    f->fy = fftw_plan_many_dft(1, &n[1], hy, f->b, NULL, 1, n[1], f->b, NULL, 1, n[1],
                               FFTW_FORWARD, FFTW_ESTIMATE);
    f->by = fftw_plan_many_dft(1, &n[1], hy, f->b, NULL, 1, n[1], f->b, NULL, 1, n[1],
                               FFTW_BACKWARD, FFTW_ESTIMATE);
    f->fz = fftw_plan_many_dft(1, &n[2], hz, f->c, NULL, 1, n[2], f->c, NULL, 1, n[2],
                               FFTW_FORWARD, FFTW_ESTIMATE);
    f->bz = fftw_plan_many_dft(1, &n[2], hz, f->c, NULL, 1, n[2], f->c, NULL, 1, n[2],
                               FFTW_BACKWARD, FFTW_ESTIMATE);
}

/* Both transposes of one mode.  The multi form of transpose 1 runs the
 * rows' alltoalls together (comm_column = the column), and vice versa. */
static int plan_transposes(fft3d_t *f, int mode, char *msg, size_t len)
{
    const fft3d_grid_t *g = f->g;
    int np = g->pr > g->pc ? g->pr : g->pc, rc = 1;
    fft3d_box_t *bx = malloc(np * sizeof *bx), *by = malloc(np * sizeof *by);
    if (!bx || !by) {
        snprintf(msg, len, "out of memory");
    } else {
        boxes_t1(g, bx, by);
        rc = fft3d_xpose_init(&f->t1[mode], mode, g->row, g->col, f->a, f->b, f->sbuf,
                              f->rbuf, f->blk1, bx, by, msg, len);
        boxes_t2(g, bx, by);
        if (rc == 0)
            rc = fft3d_xpose_init(&f->t2[mode], mode, g->col, g->row, f->b, f->c, f->sbuf,
                                  f->rbuf, f->blk2, bx, by, msg, len);
    }
    free(bx);
    free(by);
    f->have[mode] = rc == 0;
    return rc;
}

int fft3d_init(fft3d_t *f, fft3d_grid_t *g, const int want[FFT3D_NMODES], char *msg,
               size_t len)
{
    *f = (fft3d_t){.g = g};
    /* The largest message of each transpose, over the whole grid (block 0
     * of every split is the largest). */
    f->blk1 = BS(g->n[2], g->pr, 0) * BS(g->n[1], g->pc, 0) * BS(g->nxc, g->pc, 0);
    f->blk2 = BS(g->n[2], g->pr, 0) * BS(g->nxc, g->pc, 0) * BS(g->n[1], g->pr, 0);
    if ((long long)2 * f->blk1 * g->pc > INT_MAX || (long long)2 * f->blk2 * g->pr > INT_MAX) {
        snprintf(msg, len, "grid too large for int counts");
        return 1;
    }
    if (alloc_arrays(f)) {
        snprintf(msg, len, "out of memory");
        return 1;
    }
    plan_ffts(f);
    for (int m = 0; m < FFT3D_NMODES; m++)
        if (want[m] && plan_transposes(f, m, msg, len))
            return 1;
    return 0;
}

static double now(void)
{
    return MPI_Wtime();
}

/* Run the plan and add its time to t_fft. */
static void fft(fft3d_t *f, fftw_plan p)
{
    double t = now();
    fftw_execute(p);
    f->t_fft += now() - t;
}

static int xpose(fft3d_t *f, fft3d_xpose_t *t, int dir)
{
    double t0 = now();
    int rc = fft3d_xpose_run(t, dir);
    f->t_xpose += now() - t0;
    return rc;
}

int fft3d_forward(fft3d_t *f, int mode)
{
    int rc;
    fft(f, f->fx);
    if ((rc = xpose(f, &f->t1[mode], FFT3D_FORWARD)))
        return rc;
    fft(f, f->fy);
    if ((rc = xpose(f, &f->t2[mode], FFT3D_FORWARD)))
        return rc;
    fft(f, f->fz);
    return 0;
}

int fft3d_backward(fft3d_t *f, int mode)
{
    int rc;
    fft(f, f->bz);
    if ((rc = xpose(f, &f->t2[mode], FFT3D_BACKWARD)))
        return rc;
    fft(f, f->by);
    if ((rc = xpose(f, &f->t1[mode], FFT3D_BACKWARD)))
        return rc;
    fft(f, f->bx);
    return 0;
}

void fft3d_free(fft3d_t *f)
{
    fftw_plan plans[6] = {f->fx, f->bx, f->fy, f->by, f->fz, f->bz};
    /* Multi plans hold node windows: free in the same order everywhere. */
    for (int m = 0; m < FFT3D_NMODES; m++) {
        fft3d_xpose_free(&f->t1[m]);
        fft3d_xpose_free(&f->t2[m]);
    }
    for (int i = 0; i < 6; i++)
        if (plans[i])
            fftw_destroy_plan(plans[i]);
    fftw_free(f->real);
    fftw_free(f->a);
    fftw_free(f->b);
    fftw_free(f->c);
    fftw_free(f->sbuf);
    fftw_free(f->rbuf);
    *f = (fft3d_t){0};
}
