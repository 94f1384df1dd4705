/* grid.c -- the pr x pc process grid, its communicators and the local
 * extents of the three pencil layouts (fft3d.h). */
#include <stdio.h>

#include "fft3d.h"

int fft3d_block_start(int n, int p, int i)
{
    int base = n / p, rem = n % p;
    return i * base + (i < rem ? i : rem);
}

int fft3d_block_size(int n, int p, int i)
{
    return n / p + (i < n % p);
}

/* Every split dimension needs at least one point per part. */
static int check_sizes(const fft3d_grid_t *g, char *msg, size_t len)
{
    static const char *const what[4] = {"n1 (y) over PC", "n0/2+1 (kx) over PC",
                                        "n2 (z) over PR", "n1 (y) over PR"};
    const int n[4] = {g->n[1], g->nxc, g->n[2], g->n[1]};
    const int p[4] = {g->pc, g->pc, g->pr, g->pr};
    for (int i = 0; i < 4; i++)
        if (n[i] < p[i]) {
            snprintf(msg, len,
                     "size %dx%dx%d does not fit grid %dx%d: %s needs %d >= %d points",
                     g->n[0], g->n[1], g->n[2], g->pr, g->pc, what[i], n[i], p[i]);
            return 2;
        }
    return 0;
}

int fft3d_grid_init(fft3d_grid_t *g, const fft3d_opts_t *o, MPI_Comm world, char *msg,
                    size_t len)
{
    int P, rank, dims[2] = {o->pr, o->pc};
    *g = (fft3d_grid_t){.grid = MPI_COMM_NULL, .row = MPI_COMM_NULL, .col = MPI_COMM_NULL};
    MPI_Comm_size(world, &P);
    MPI_Comm_rank(world, &rank);
    if (dims[0] == 0)
        MPI_Dims_create(P, 2, dims);
    if ((long)dims[0] * dims[1] != P) {
        snprintf(msg, len, "grid %dx%d has %ld ranks but the job has %d (PR*PC must be %d)",
                 dims[0], dims[1], (long)dims[0] * dims[1], P, P);
        return 2;
    }
    for (int d = 0; d < 3; d++)
        g->n[d] = o->n[d];
    g->nxc = g->n[0] / 2 + 1;
    g->pr = dims[0];
    g->pc = dims[1];
    if (check_sizes(g, msg, len))
        return 2;
    g->r = rank / g->pc;
    g->c = rank % g->pc;
    MPI_Comm_dup(world, &g->grid);
    MPI_Comm_split(g->grid, g->r, g->c, &g->row);
    MPI_Comm_split(g->grid, g->c, g->r, &g->col);
    g->nzA = fft3d_block_size(g->n[2], g->pr, g->r);
    g->zs = fft3d_block_start(g->n[2], g->pr, g->r);
    g->nyA = fft3d_block_size(g->n[1], g->pc, g->c);
    g->ys_A = fft3d_block_start(g->n[1], g->pc, g->c);
    g->kxB = fft3d_block_size(g->nxc, g->pc, g->c);
    g->kxs = fft3d_block_start(g->nxc, g->pc, g->c);
    g->nyC = fft3d_block_size(g->n[1], g->pr, g->r);
    g->ys_C = fft3d_block_start(g->n[1], g->pr, g->r);
    return 0;
}

void fft3d_grid_free(fft3d_grid_t *g)
{
    MPI_Comm *comms[3] = {&g->row, &g->col, &g->grid};
    for (int i = 0; i < 3; i++)
        if (*comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(comms[i]);
}
