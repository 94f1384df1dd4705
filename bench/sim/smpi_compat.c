/*
 * smpi_compat: two workarounds for SimGrid SMPI 3.32 (Debian's libsimgrid-dev),
 * linked into the simulated pcoll-bench only (bench/sim/build.mk), through
 * the linker's --wrap so that neither pcoll nor the benchmark changes.
 *
 * 1. MPI_Finalize.  MPI deletes the attributes of MPI_COMM_SELF first, while
 *    MPI is still fully usable (MPI-4.1 section 11.2.6); pcoll's delete callback
 *    on MPI_COMM_SELF frees its communicator contexts there, which calls
 *    MPI_Comm_delete_attr on the user's communicators.  SMPI runs that
 *    callback after it has marked the rank finalized, so the call fails
 *    ("PMPI_Attr_delete: MPI_Init was not called !") and, with MPI_COMM_WORLD's
 *    fatal error handler, aborts the run.  The wrapper remembers every keyval
 *    set on MPI_COMM_SELF and deletes those attributes just before SMPI's own
 *    MPI_Finalize, which is what MPI specifies.
 *
 * 2. Persistent sends of derived datatypes.  SMPI packs the data of a
 *    non-contiguous send when the request is created (MPI_Send_init), so the
 *    first MPI_Start of such a request sends the buffer as it was at init,
 *    not as it is at the start; later starts are right.  pcoll plans are
 *    built before the user fills the buffers, and the Bruck variants send from
 *    the receive buffer that earlier rounds fill, so every derived-type
 *    algorithm came out wrong on its first run.  The wrapper records the
 *    arguments of every MPI_Send_init of a derived datatype and, at the first
 *    MPI_Start of that request, replaces it by a fresh one (so SMPI packs the
 *    current data) before starting it.  The wrapper runs between SMPI's MPI
 *    calls, so with smpi/simulate-computation on its CPU time is charged to
 *    the rank like the program's own; the replacement happens at the first
 *    start only (a plan's check run, not timed), and later starts skip the
 *    lookup once no recorded request is waiting (see find()).
 *
 * Each simulated rank has its own copy of the statics below (SMPI privatizes
 * the program's globals).
 */
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

int __real_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value);
int __real_MPI_Finalize(void);
int __real_MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *req);
int __real_MPI_Start(MPI_Request *req);
int __real_MPI_Startall(int n, MPI_Request reqs[]);
int __real_MPI_Request_free(MPI_Request *req);

/* ---- 1. MPI_COMM_SELF attributes deleted before SMPI's finalize ---- */

enum { MAX_SELF_KEYS = 16 };
static int self_keys[MAX_SELF_KEYS];
static int nself;

int __wrap_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    int i;
    if (comm == MPI_COMM_SELF) {
        for (i = 0; i < nself && self_keys[i] != keyval; i++)
            ;
        if (i == nself && nself < MAX_SELF_KEYS)
            self_keys[nself++] = keyval;
    }
    return __real_MPI_Comm_set_attr(comm, keyval, value);
}

int __wrap_MPI_Finalize(void)
{
    /* Reverse order of setting, like MPI_Finalize's own deletion order. */
    while (nself > 0)
        MPI_Comm_delete_attr(MPI_COMM_SELF, self_keys[--nself]);
    return __real_MPI_Finalize();
}

/* ---- 2. persistent derived-type sends re-created at their first start ---- */

typedef struct {
    MPI_Request req; /* key; NULL: empty slot, TOMB: deleted */
    const void *buf;
    int count, peer, tag;
    MPI_Datatype type;
    MPI_Comm comm;
} persistent_t;

static persistent_t *table; /* open addressing, linear probing */
static size_t cap, used;    /* used counts live entries and tombstones */
static size_t live;         /* recorded requests neither started nor freed */
static char tomb_mark;
#define TOMB ((MPI_Request)(void *)&tomb_mark)

static size_t slot_of(MPI_Request req)
{
    uintptr_t h = (uintptr_t)(void *)req;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

/* The entry of req, or NULL.  Once every recorded request has been started
 * (a plan's first run), nothing is looked up: a start costs one comparison
 * here, not a probe of the table, which with simulate-computation on is
 * charged to the rank as computation (docs/simulation.md). */
static persistent_t *find(MPI_Request req)
{
    size_t i;
    if (live == 0 || req == MPI_REQUEST_NULL)
        return NULL;
    for (i = slot_of(req); table[i].req != NULL; i = (i + 1) & (cap - 1))
        if (table[i].req == req)
            return &table[i];
    return NULL;
}

static int insert(const persistent_t *e);

/* Rebuild the table without tombstones; double it when it is over a
 * quarter full of live entries (or create it). */
static int rehash(void)
{
    persistent_t *old = table;
    size_t oldcap = cap, i;
    cap = cap == 0 ? 1024 : 4 * live >= cap ? 2 * cap : cap;
    table = calloc(cap, sizeof *table);
    if (!table) {
        table = old, cap = oldcap;
        return -1;
    }
    used = live = 0;
    for (i = 0; i < oldcap; i++)
        if (old[i].req != NULL && old[i].req != TOMB)
            insert(&old[i]);
    free(old);
    return 0;
}

static int insert(const persistent_t *e)
{
    size_t i;
    if (2 * (used + 1) > cap && rehash() != 0)
        return -1;
    for (i = slot_of(e->req); table[i].req != NULL && table[i].req != TOMB;
         i = (i + 1) & (cap - 1))
        ;
    if (table[i].req == NULL)
        used++;
    table[i] = *e;
    live++;
    return 0;
}

/* The request of e has been started or freed: it needs nothing more. */
static void forget(persistent_t *e)
{
    e->req = TOMB;
    live--;
}

static int is_derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    return combiner != MPI_COMBINER_NAMED;
}

static int make(const persistent_t *e, MPI_Request *req)
{
    return __real_MPI_Send_init(e->buf, e->count, e->type, e->peer, e->tag, e->comm, req);
}

int __wrap_MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *req)
{
    persistent_t e = {NULL, buf, count, dest, tag, type, comm};
    int err = make(&e, req);
    if (err != MPI_SUCCESS || count == 0 || !is_derived(type))
        return err;
    e.req = *req;
    return insert(&e) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Before the first start of a recorded request: replace it by a fresh one
 * (made before the old one is freed, so that the datatype stays referenced). */
static int refresh(MPI_Request *req)
{
    persistent_t *e = find(*req);
    MPI_Request fresh;
    int err;
    if (!e)
        return MPI_SUCCESS;
    forget(e);
    err = make(e, &fresh);
    if (err == MPI_SUCCESS)
        err = __real_MPI_Request_free(req);
    if (err == MPI_SUCCESS)
        *req = fresh;
    return err;
}

int __wrap_MPI_Start(MPI_Request *req)
{
    int err = refresh(req);
    return err == MPI_SUCCESS ? __real_MPI_Start(req) : err;
}

int __wrap_MPI_Startall(int n, MPI_Request reqs[])
{
    int i, err = MPI_SUCCESS;
    for (i = 0; i < n && err == MPI_SUCCESS; i++)
        err = refresh(&reqs[i]);
    return err == MPI_SUCCESS ? __real_MPI_Startall(n, reqs) : err;
}

int __wrap_MPI_Request_free(MPI_Request *req)
{
    persistent_t *e = find(*req);
    if (e)
        forget(e);
    return __real_MPI_Request_free(req);
}
