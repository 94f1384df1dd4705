/*
 * alltoall `bruck_zerocopy` and `bruck_zerocopy_blocks`: Zero-copy Bruck
 * (zero-copy Bruck paper section 3.3, Listing 3).  The communication pattern
 * of Modified Bruck, with no local copy at all: in round k each element j
 * (bit k set) is received either straight into its final place in the
 * receive buffer, when the number of set bits of j from bit k up is odd (no
 * further hop, or an even number more), or into slot j of an intermediate
 * buffer otherwise; it is sent from the send buffer when it has no bit below k
 * (it has not moved yet), else from wherever it was received the round
 * before: the intermediate buffer when that count is odd, the receive buffer
 * when even.  Per round, one struct type with absolute addresses describes
 * the send and one the receive.  bruck_zerocopy lists every element;
 * bruck_zerocopy_blocks collapses each run of 2^k consecutive elements (which
 * share the parity) into the new element plus one block of 2^k - 1 (plus a
 * split where the run wraps around the receive buffer).
 *
 * Cost: ceil(log2 p) rounds; at most floor(p/2) blocks per round,
 * ceil(log2 p) floor(p/2) n bytes sent in all; local copies: the own block
 * only.  Scratch: bruck_zerocopy assigns intermediate slots by interval
 * colouring and needs exactly the peak number of elements live in one round
 * (about 0.73 p, e.g. 94 of 128; the paper's Listing 3 uses p; its open
 * problem, floor(p/2), is not reached: see docs/algorithms.md);
 * bruck_zerocopy_blocks keeps slot j for element j (up to p blocks).  Types
 * per round: two structs of up to floor(p/2) entries (blocks variant: about
 * 3 entries per run of 2^k).  In place: a staged copy (p blocks).
 */
#include "alltoall/bruck.h"
#include "base/mem.h"
#include "base/status.h"
#include "patterns/bruck.h"

/* Struct entries under construction. */
typedef struct entries {
    int n;
    int *lens;
    MPI_Aint *displs;
    MPI_Datatype *types;
} entries_t;

/* Intermediate slots.  Element-wise, an element holds a slot from the round
 * it arrives until the round it is sent on; slots it frees become reusable
 * only in the next round (a receive must not land where a send of the same
 * round reads).  Greedy assignment in round order uses exactly the peak
 * number of slots live in one round.  The blocks variant keeps slot j for
 * element j so runs stay contiguous. */
typedef struct slots {
    int *of;        /* of[j]: slot of element j while it is in the buffer */
    int *free;      /* stack of reusable slots */
    int nfree;
    int *release;   /* slots freed by this round's sends */
    int nrelease;
    int used;       /* slots ever handed out: the buffer size */
} slots_t;

typedef struct zc {
    const pcoll__a2a_args_t *a;
    pcoll__bruck_types_t t;
    int p, i, blocks;
    int counting;         /* dry run: assign slots, build nothing */
    char *inter;          /* intermediate buffer, signature-typed slots */
    slots_t slots;
    entries_t send, recv;
} zc_t;

static void add(zc_t *z, entries_t *e, const void *addr, int len, MPI_Datatype type)
{
    if (z->counting)
        return;
    MPI_Get_address(addr, &e->displs[e->n]);
    e->lens[e->n] = len;
    e->types[e->n++] = type;
}

/* len consecutive receive blocks from (i + j) mod p, split where they wrap. */
static void add_ring(zc_t *z, entries_t *e, int j, int len)
{
    int first = (z->i + j) % z->p, head = z->p - first < len ? z->p - first : len;
    add(z, e, pcoll__a2a_rbuf(z->a, first), head, z->t.rblk);
    if (len > head)
        add(z, e, pcoll__a2a_rbuf(z->a, 0), len - head, z->t.rblk);
}

/* Elements j .. j+len-1 arriving in (or, with out set, leaving) the buffer. */
static void add_inter(zc_t *z, entries_t *e, int j, int len, int out)
{
    slots_t *s = &z->slots;
    int slot = j;
    if (!z->blocks && out)
        slot = s->release[s->nrelease++] = s->of[j];
    else if (!z->blocks)
        slot = s->of[j] = s->nfree > 0 ? s->free[--s->nfree] : s->used++;
    else if (j + len > s->used)
        s->used = j + len;
    add(z, e, z->inter + (MPI_Aint)slot * z->t.sigext, len, z->t.sig);
}

/* Elements j .. j+len-1 of round k: all share the parity of j's high bits. */
static void add_run(zc_t *z, unsigned k, int j, int len)
{
    int odd = pcoll__bits_from((unsigned)j, k) % 2 == 1, from = j;
    if (odd)
        add_ring(z, &z->recv, j, len);
    else
        add_inter(z, &z->recv, j, len, 0);
    if (((unsigned)j & (k - 1u)) == 0) {
        add(z, &z->send, pcoll__a2a_sbuf(z->a, (z->i - j + z->p) % z->p), 1, z->t.sblk);
        from++;
        len--;
    }
    if (len > 0 && odd)
        add_inter(z, &z->send, from, len, 1);
    else if (len > 0)
        add_ring(z, &z->send, from, len);
}

static int commit_struct(pcoll_plan_t *plan, entries_t *e, MPI_Datatype *type)
{
    if (MPI_Type_create_struct(e->n, e->lens, e->displs, e->types, type) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "bruck_zerocopy: struct type");
    e->n = 0;
    return pcoll__plan_own_type(plan, type);
}

/* Round k: one struct for what is sent, one for what is received; then the
 * slots this round's sends vacate become free for later rounds. */
static int round_types(pcoll_plan_t *plan, zc_t *z, unsigned k, MPI_Datatype *st,
                       MPI_Datatype *rt)
{
    int j, rc = PCOLL_SUCCESS;
    for (j = (int)k; j < z->p; j += 2 * (int)k) {
        int len = z->p - j < (int)k ? z->p - j : (int)k, t;
        if (z->blocks)
            add_run(z, k, j, len);
        else
            for (t = 0; t < len; t++)
                add_run(z, k, j + t, 1);
    }
    while (z->slots.nrelease > 0)
        z->slots.free[z->slots.nfree++] = z->slots.release[--z->slots.nrelease];
    if (z->counting)
        return PCOLL_SUCCESS;
    rc = commit_struct(plan, &z->send, st);
    return rc == PCOLL_SUCCESS ? commit_struct(plan, &z->recv, rt) : rc;
}

static int alloc_entries(pcoll_plan_t *plan, entries_t *e, int n)
{
    e->lens = pcoll__plan_alloc(plan, sizeof(int) * (size_t)n);
    e->displs = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)n);
    e->types = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * (size_t)n);
    return e->lens && e->displs && e->types
               ? PCOLL_SUCCESS
               : pcoll__error(PCOLL_ERR_NOMEM, "bruck_zerocopy: struct entries");
}

static int alloc_slots(pcoll_plan_t *plan, slots_t *s, int p)
{
    s->of = pcoll__plan_alloc(plan, sizeof(int) * (size_t)p);
    s->free = pcoll__plan_alloc(plan, sizeof(int) * (size_t)p);
    s->release = pcoll__plan_alloc(plan, sizeof(int) * (size_t)p);
    return s->of && s->free && s->release
               ? PCOLL_SUCCESS
               : pcoll__error(PCOLL_ERR_NOMEM, "bruck_zerocopy: slot tables");
}

/* Size the intermediate buffer with a dry run of the slot assignment. */
static int size_buffer(pcoll_plan_t *plan, zc_t *z)
{
    unsigned k;
    z->counting = 1;
    for (k = 1; k < (unsigned)z->p; k <<= 1)
        round_types(plan, z, k, NULL, NULL);
    z->counting = 0;
    z->inter = pcoll__plan_alloc(plan, (size_t)z->slots.used * (size_t)z->t.sigext);
    z->slots.nfree = z->slots.nrelease = z->slots.used = 0;
    return z->inter ? PCOLL_SUCCESS
                    : pcoll__error(PCOLL_ERR_NOMEM, "bruck_zerocopy: intermediate buffer");
}

static int zerocopy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int blocks)
{
    zc_t z = {.a = a, .p = plan->size, .i = plan->rank, .blocks = blocks};
    unsigned k;
    int rc;

    PCOLL_CHECK(pcoll__bruck_types(plan, a, &z.t), rc, out);
    PCOLL_CHECK(alloc_slots(plan, &z.slots, z.p), rc, out);
    PCOLL_CHECK(alloc_entries(plan, &z.send, z.p + 2), rc, out);
    PCOLL_CHECK(alloc_entries(plan, &z.recv, z.p + 2), rc, out);
    PCOLL_CHECK(size_buffer(plan, &z), rc, out);
    for (k = 1; k < (unsigned)z.p; k <<= 1) {
        MPI_Datatype st, rt;
        PCOLL_CHECK(round_types(plan, &z, k, &st, &rt), rc, out);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        PCOLL_CHECK(pcoll__sched_recv(&plan->sched, MPI_BOTTOM, 1, rt, (z.i + (int)k) % z.p), rc,
                    out);
        PCOLL_CHECK(pcoll__sched_send(&plan->sched, MPI_BOTTOM, 1, st,
                                      (z.i - (int)k + z.p) % z.p), rc, out);
        /* The own block is the only local copy; it overlaps round 0. */
        if (k == 1)
            PCOLL_CHECK(pcoll__a2a_self_copy(plan, a), rc, out);
    }
    if (z.p == 1)
        rc = pcoll__a2a_self_copy(plan, a);
out:
    return rc;
}

int pcoll__alltoall_bruck_zerocopy(pcoll_plan_t *plan, const void *args)
{
    return zerocopy(plan, args, 0);
}

int pcoll__alltoall_bruck_zerocopy_blocks(pcoll_plan_t *plan, const void *args)
{
    return zerocopy(plan, args, 1);
}
