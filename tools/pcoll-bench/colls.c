/*
 * The collectives pcoll-bench knows.  A collective that pcoll does not
 * implement yet has no table: it is listed as "not available yet".  A new
 * collective adds its coll_<name>.c and one line here.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

extern const bench_coll_t bench_coll_alltoall;
extern const bench_coll_t bench_coll_alltoall_multi;
extern const bench_coll_t bench_coll_alltoallv;
extern const bench_coll_t bench_coll_alltoallv_inplace;
extern const bench_coll_t bench_coll_neighbor_alltoallv;
extern const bench_coll_t bench_coll_neighbor_alltoallv_inplace;
extern const bench_coll_t bench_coll_reduce_scatter;
extern const bench_coll_t bench_coll_reduce_scatter_block;

static const struct {
    const char *name;
    const bench_coll_t *coll; /* NULL: not available yet */
} registry[] = {
    {"alltoall", &bench_coll_alltoall},
    {"alltoall_multi", &bench_coll_alltoall_multi},
    {"alltoallv", &bench_coll_alltoallv},
    {"alltoallv_inplace", &bench_coll_alltoallv_inplace},
    {"neighbor_alltoallv", &bench_coll_neighbor_alltoallv},
    {"neighbor_alltoallv_inplace", &bench_coll_neighbor_alltoallv_inplace},
    {"reduce_scatter", &bench_coll_reduce_scatter},
    {"reduce_scatter_block", &bench_coll_reduce_scatter_block},
};
enum { NCOLLS = sizeof registry / sizeof *registry };

static int find(const char *name)
{
    int i;
    for (i = 0; i < NCOLLS; i++)
        if (strcmp(registry[i].name, name) == 0)
            return i;
    return -1;
}

const bench_coll_t *bench_coll_find(const char *name)
{
    int i = find(name);
    return i < 0 ? NULL : registry[i].coll;
}

int bench_coll_known(const char *name) { return find(name) >= 0; }

void bench_coll_list(char *buf, size_t len)
{
    int i;
    buf[0] = '\0';
    for (i = 0; i < NCOLLS; i++)
        bench_append(buf, len, i ? ", " : "", registry[i].name);
}

void bench_coll_print(FILE *out)
{
    int i;
    for (i = 0; i < NCOLLS; i++)
        fprintf(out, "  %-22s %s\n", registry[i].name,
                registry[i].coll ? "available" : "not available yet");
}
