/*
 * fft3d.h -- pencil-decomposed 3D real FFT (pcoll-fft3d), shared declarations.
 *
 * The real grid has n0 x n1 x n2 points, x (extent n0) fastest, and its
 * spectrum (n0/2+1) x n1 x n2 complex values, kx fastest: the layout of
 * FFTW's r2c transform of the reversed dimensions (n2, n1, n0).  Ranks form
 * a pr x pc grid; rank (r, c) = world rank r*pc + c.  Three pencil layouts:
 *   A  x-pencils  [z: block r of n2 over pr][y: block c of n1 over pc][x: all]
 *   B  y-pencils  [z: block r of n2 over pr][kx: block c of nxc over pc][y: all]
 *   C  z-pencils  [kx: block c of nxc over pc][y: block r of n1 over pr][z: all]
 * Transpose 1 (A <-> B) runs in the row communicator (same r, pc ranks),
 * transpose 2 (B <-> C) in the column communicator (same c, pr ranks).
 */
#ifndef PCOLL_FFT3D_H
#define PCOLL_FFT3D_H

#include <stddef.h>
#include <mpi.h>
#include <pcoll.h>
#include <fftw3.h>

enum fft3d_mode { FFT3D_NATIVE, FFT3D_PCOLL, FFT3D_MULTI, FFT3D_NMODES };
/* --transpose all: every mode of this build, one after the other. */
#define FFT3D_ALL FFT3D_NMODES
enum fft3d_dir { FFT3D_FORWARD, FFT3D_BACKWARD };

typedef struct {
    int n[3];          /* n0, n1, n2 */
    int pr, pc;        /* process grid; 0 x 0 = chosen by MPI_Dims_create */
    int mode;          /* enum fft3d_mode, or FFT3D_ALL */
    int iters;
    int check;
    const char *dump;  /* --dump: file for the spectrum of the test input */
} fft3d_opts_t;

/* Parse argv into *o.  Returns 0, 1 for --help (usage printed to out), or 2
 * with a message in msg (size len). */
int fft3d_parse(int argc, char **argv, fft3d_opts_t *o, char *msg, size_t len);
const char *fft3d_mode_name(int mode);
void fft3d_usage(FILE *out);

/* Block i of n items split over p parts: start and size. */
int fft3d_block_start(int n, int p, int i);
int fft3d_block_size(int n, int p, int i);

/* A box of a local array: n[0] x n[1] x n[2] elements at off + i*s[0] +
 * j*s[1] + k*s[2], walked with k fastest (the order of a message). */
typedef struct {
    int n[3];
    ptrdiff_t s[3];
    ptrdiff_t off;
} fft3d_box_t;

/* The process grid and the local extents of the three layouts. */
typedef struct {
    int n[3], nxc;               /* nxc = n0/2 + 1 */
    int pr, pc, r, c;            /* grid and this rank's coordinates */
    MPI_Comm grid, row, col;     /* row: same r (pc ranks); col: same c (pr ranks) */
    int nzA, nyA;                /* A: nzA x nyA x n0 (real), x nxc (complex) */
    int kxB;                     /* B: nzA x kxB x n1 */
    int nyC;                     /* C: kxB x nyC x n2 */
    int zs, ys_A, kxs, ys_C;     /* global starts of the local blocks */
} fft3d_grid_t;

/* Validate sizes and grid against P (message in msg, returns 2 when bad) and
 * build the communicators. */
int fft3d_grid_init(fft3d_grid_t *g, const fft3d_opts_t *o, MPI_Comm world, char *msg,
                    size_t len);
void fft3d_grid_free(fft3d_grid_t *g);

/* One transpose (X <-> Y layouts over one communicator), with the message
 * boxes of every peer and the communication of one mode planned once. */
typedef struct {
    int mode, np;
    MPI_Comm comm, other;        /* the communicator and the perpendicular one */
    fftw_complex *x, *y;         /* the two layouts */
    fftw_complex *sbuf, *rbuf;   /* shared workspace: np * blk each */
    int blk;                     /* padded message (complex values), same on all ranks */
    int uniform;                 /* all messages of blk values: alltoall */
    fft3d_box_t *bx, *by;        /* box of the message with peer i in X / in Y */
    int *cx, *cy, *displ;        /* counts (doubles) of bx, by; displacements */
    pcoll_plan_t *plan[2];       /* pcoll / multi: forward, backward */
} fft3d_xpose_t;

int fft3d_xpose_init(fft3d_xpose_t *t, int mode, MPI_Comm comm, MPI_Comm other,
                     fftw_complex *x, fftw_complex *y, fftw_complex *sbuf, fftw_complex *rbuf,
                     int blk, const fft3d_box_t *bx, const fft3d_box_t *by, char *msg,
                     size_t len);
/* Move the data X -> Y (forward) or Y -> X (backward).
 * (Packing, communication and unpacking.) */
int fft3d_xpose_run(fft3d_xpose_t *t, int dir);
void fft3d_xpose_free(fft3d_xpose_t *t);

/* The whole 3D FFT: arrays, FFTW plans and the two transposes of one mode. */
typedef struct {
    fft3d_grid_t *g;
    double *real;                /* A, real: nzA*nyA*n0 */
    fftw_complex *a, *b, *c;     /* A, B, C complex layouts */
    fftw_complex *sbuf, *rbuf;   /* transpose workspace */
    int blk1, blk2;              /* padded message sizes of transposes 1 and 2 */
    fftw_plan fx, bx, fy, by, fz, bz;
    fft3d_xpose_t t1[FFT3D_NMODES], t2[FFT3D_NMODES];
    int have[FFT3D_NMODES];      /* transposes planned for this mode */
    double t_fft, t_xpose;       /* accumulated seconds */
} fft3d_t;

/* Allocate, plan FFTW and the transposes of every mode with want[mode] set. */
int fft3d_init(fft3d_t *f, fft3d_grid_t *g, const int want[FFT3D_NMODES], char *msg,
               size_t len);
/* real (A) -> spectrum (C) and back (C -> real, unnormalised, as FFTW). */
int fft3d_forward(fft3d_t *f, int mode);
int fft3d_backward(fft3d_t *f, int mode);
void fft3d_free(fft3d_t *f);

/* --check: every error against its bound, the serial and known-spectrum
 * ones with mode, the round trip with every planned mode; prints on rank 0;
 * returns 0 if all pass, 1 otherwise. */
int fft3d_check(fft3d_t *f, int mode);
/* input.c: a real input as a function of the global coordinates; the test
 * input, a hash of them in [-1, 1) (the same on every grid); f->real filled
 * with u, or with the test input. */
typedef double fft3d_input_fn(const fft3d_grid_t *g, int x, int y, int z);
double fft3d_hash_input(const fft3d_grid_t *g, int x, int y, int z);
void fft3d_fill_with(fft3d_t *f, fft3d_input_fn *u);
void fft3d_fill(fft3d_t *f);

/* Gather the spectrum (layout C, f->c) on rank 0 into *out, a new array
 * [kz][ky][kx] of (n0/2+1) x n1 x n2 values, kx fastest, that the caller
 * frees with fftw_free; *out is NULL on the other ranks.  Collective over
 * the grid; returns 0, or 1 on every rank if rank 0 failed. */
int fft3d_gather_spectrum(const fft3d_t *f, fftw_complex **out);
/* Forward transform of the test input with mode, written by rank 0 to path
 * as raw native-endian complex doubles in fft3d_gather_spectrum's order.
 * Collective; returns 0 or 1 (message on rank 0). */
int fft3d_dump(fft3d_t *f, int mode, const char *path);

#endif
