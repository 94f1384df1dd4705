/* transpose.c -- one pencil transpose (X <-> Y over one communicator) in
 * three interchangeable forms, all planned once:
 *   native  MPI_Alltoall when every message has blk values, else MPI_Alltoallv
 *   pcoll   pcoll_alltoall_init / pcoll_alltoallv_init, one plan per direction
 *   multi   pcoll_alltoall_multi_init with every message padded to blk values
 *           (blk is the largest message of the whole grid, so that all rows
 *           run the same alltoall), one plan for both directions
 * The message for peer i always sits at i*blk in the workspace, so that the
 * three forms move exactly the same bytes.  Cost per run: the packing and
 * unpacking of the local array plus one alltoall[v] of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

/* Copy the box of arr to the contiguous buf (to_buf) or back. */
static void copy_box(fftw_complex *arr, const fft3d_box_t *b, fftw_complex *buf, int to_buf)
{
    size_t m = 0;
    for (int i = 0; i < b->n[0]; i++)
        for (int j = 0; j < b->n[1]; j++) {
            fftw_complex *p = arr + b->off + i * b->s[0] + j * b->s[1];
            for (int k = 0; k < b->n[2]; k++, m++) {
                if (to_buf)
                    memcpy(buf[m], p[k * b->s[2]], sizeof(fftw_complex));
                else
                    memcpy(p[k * b->s[2]], buf[m], sizeof(fftw_complex));
            }
        }
}

static int box_volume(const fft3d_box_t *b)
{
    return b->n[0] * b->n[1] * b->n[2];
}

static int pcoll_fail(int rc, const char *what, char *msg, size_t len)
{
    snprintf(msg, len, "%s: %s (%s)", what, pcoll_strerror(rc), pcoll_last_error());
    return 1;
}

/* The pcoll plans: one per direction (alltoallv), or one for both. */
static int plan_pcoll(fft3d_xpose_t *t, char *msg, size_t len)
{
    int rc = 0, cnt = 2 * t->blk;
    double *s = (double *)t->sbuf, *r = (double *)t->rbuf;
    if (t->mode == FFT3D_MULTI) {
        rc = pcoll_alltoall_multi_init(s, cnt, MPI_DOUBLE, r, cnt, MPI_DOUBLE, t->comm,
                                       t->other, MPI_INFO_NULL, &t->plan[0]);
        return rc ? pcoll_fail(rc, "pcoll_alltoall_multi_init", msg, len) : 0;
    }
    if (t->uniform) {
        rc = pcoll_alltoall_init(s, cnt, MPI_DOUBLE, r, cnt, MPI_DOUBLE, t->comm,
                                 MPI_INFO_NULL, &t->plan[0]);
        return rc ? pcoll_fail(rc, "pcoll_alltoall_init", msg, len) : 0;
    }
    for (int dir = 0; dir < 2 && rc == 0; dir++) {
        const int *sc = dir == FFT3D_FORWARD ? t->cx : t->cy;
        const int *rcnt = dir == FFT3D_FORWARD ? t->cy : t->cx;
        rc = pcoll_alltoallv_init(s, sc, t->displ, MPI_DOUBLE, r, rcnt, t->displ, MPI_DOUBLE,
                                  t->comm, MPI_INFO_NULL, &t->plan[dir]);
    }
    return rc ? pcoll_fail(rc, "pcoll_alltoallv_init", msg, len) : 0;
}

int fft3d_xpose_init(fft3d_xpose_t *t, int mode, MPI_Comm comm, MPI_Comm other,
                     fftw_complex *x, fftw_complex *y, fftw_complex *sbuf, fftw_complex *rbuf,
                     int blk, const fft3d_box_t *bx, const fft3d_box_t *by, char *msg,
                     size_t len)
{
    int np, uniform = 1;
    MPI_Comm_size(comm, &np);
    *t = (fft3d_xpose_t){.mode = mode, .np = np, .comm = comm, .other = other, .x = x,
                         .y = y, .sbuf = sbuf, .rbuf = rbuf, .blk = blk};
    t->bx = malloc(np * sizeof *t->bx);
    t->by = malloc(np * sizeof *t->by);
    t->cx = malloc(3 * np * sizeof *t->cx);
    if (!t->bx || !t->by || !t->cx) {
        snprintf(msg, len, "out of memory");
        return 1;
    }
    t->cy = t->cx + np;
    t->displ = t->cy + np;
    for (int i = 0; i < np; i++) {
        t->bx[i] = bx[i];
        t->by[i] = by[i];
        t->cx[i] = 2 * box_volume(&bx[i]);
        t->cy[i] = 2 * box_volume(&by[i]);
        t->displ[i] = 2 * i * blk;
        uniform &= t->cx[i] == 2 * blk && t->cy[i] == 2 * blk;
    }
    MPI_Allreduce(&uniform, &t->uniform, 1, MPI_INT, MPI_MIN, comm);
    return mode == FFT3D_NATIVE ? 0 : plan_pcoll(t, msg, len);
}

static int communicate(fft3d_xpose_t *t, int dir)
{
    double *s = (double *)t->sbuf, *r = (double *)t->rbuf;
    if (t->mode == FFT3D_NATIVE) {
        const int *sc = dir == FFT3D_FORWARD ? t->cx : t->cy;
        const int *rc = dir == FFT3D_FORWARD ? t->cy : t->cx;
        if (t->uniform)
            return MPI_Alltoall(s, 2 * t->blk, MPI_DOUBLE, r, 2 * t->blk, MPI_DOUBLE, t->comm);
        return MPI_Alltoallv(s, sc, t->displ, MPI_DOUBLE, r, rc, t->displ, MPI_DOUBLE,
                             t->comm);
    }
    pcoll_plan_t *p = t->plan[t->plan[1] ? dir : 0];
    int rc = pcoll_start(p);
    return rc ? rc : pcoll_wait(p);
}

int fft3d_xpose_run(fft3d_xpose_t *t, int dir)
{
    fftw_complex *src = dir == FFT3D_FORWARD ? t->x : t->y;
    fftw_complex *dst = dir == FFT3D_FORWARD ? t->y : t->x;
    const fft3d_box_t *bs = dir == FFT3D_FORWARD ? t->bx : t->by;
    const fft3d_box_t *bd = dir == FFT3D_FORWARD ? t->by : t->bx;
    for (int i = 0; i < t->np; i++)
        copy_box(src, &bs[i], t->sbuf + (size_t)i * t->blk, 1);
    int rc = communicate(t, dir);
    for (int i = 0; i < t->np && rc == 0; i++)
        copy_box(dst, &bd[i], t->rbuf + (size_t)i * t->blk, 0);
    return rc;
}

void fft3d_xpose_free(fft3d_xpose_t *t)
{
    for (int dir = 0; dir < 2; dir++)
        pcoll_plan_free(&t->plan[dir]);
    free(t->bx);
    free(t->by);
    free(t->cx);
    *t = (fft3d_xpose_t){0};
}
