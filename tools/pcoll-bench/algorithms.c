/*
 * --algorithms: "all" or a comma-separated list, checked against pcoll's
 * algorithm table of the collective (pcoll_algorithm_name).
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "pcoll.h"

void bench_algorithm_list(const char *coll, char *buf, size_t len)
{
    const char *name;
    int i;
    buf[0] = '\0';
    for (i = 0; (name = pcoll_algorithm_name(coll, i)) != NULL; i++)
        bench_append(buf, len, i ? ", " : "", name);
}

/* Index of name in o->algos[0..o->nalgos), or -1. */
static int listed(const bench_opts_t *o, const char *name)
{
    int i;
    for (i = 0; i < o->nalgos; i++)
        if (strcmp(o->algos[i], name) == 0)
            return i;
    return -1;
}

/* Append name, a member of pcoll's table for o->coll, to o->algos. */
static int add_algorithm(bench_opts_t *o, const char *name, char *err, size_t errlen)
{
    char list[512];
    const char *known;
    int i;
    for (i = 0; (known = pcoll_algorithm_name(o->coll, i)) != NULL; i++)
        if (strcmp(known, name) == 0)
            break;
    bench_algorithm_list(o->coll, list, sizeof list);
    if (!known)
        return bench_fail(err, errlen, "--algorithms: \"%s\" is not one of the %s algorithms (%s)",
                          name, o->coll, list);
    if (listed(o, name) >= 0)
        return bench_fail(err, errlen, "--algorithms: \"%s\" appears twice", name);
    if (o->nalgos == BENCH_MAX_ALGOS)
        return bench_fail(err, errlen, "--algorithms: more than %d names", BENCH_MAX_ALGOS);
    snprintf(o->algos[o->nalgos++], BENCH_NAME_LEN, "%s", name);
    return 0;
}

int bench_options_algorithms(bench_opts_t *o, char *err, size_t errlen)
{
    char name[BENCH_NAME_LEN];
    const char *p = o->algorithms;
    int i, more;
    o->nalgos = 0;
    if (strcmp(p, "all") == 0) {
        /* The device-buffer algorithms only with --gpu: on host buffers
         * they are their host child plus copies. */
        for (i = 0; pcoll_algorithm_name(o->coll, i) != NULL; i++)
            if ((o->gpu || strncmp(pcoll_algorithm_name(o->coll, i), "gpu_", 4) != 0) &&
                add_algorithm(o, pcoll_algorithm_name(o->coll, i), err, errlen))
                return -1;
        return 0;
    }
    while ((more = bench_next_item(&p, name, sizeof name)) > 0)
        if (add_algorithm(o, name, err, errlen))
            return -1;
    if (more < 0)
        return bench_fail(err, errlen, "--algorithms: empty or overlong name in \"%s\"",
                    o->algorithms);
    return 0;
}
