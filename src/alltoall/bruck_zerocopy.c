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
 * only.  Scratch: p blocks (the paper's open problem of using floor(p/2) is
 * not solved here).  Types per round: two structs of up to floor(p/2) entries
 * (blocks variant: about 3 p / 2^(k+1)).  In place: a staged copy (p blocks).
 */
#include "alltoall/bruck.h"
#include "core/mem.h"
#include "core/status.h"
#include "patterns/bruck.h"

/* Struct entries under construction. */
typedef struct entries {
    int n;
    int *lens;
    MPI_Aint *displs;
    MPI_Datatype *types;
} entries_t;

typedef struct zc {
    const pcoll__a2a_args_t *a;
    pcoll__bruck_types_t t;
    int p, i;
    char *inter;          /* slot j holds element j (signature type) */
    entries_t send, recv;
} zc_t;

static void add(entries_t *e, const void *addr, int len, MPI_Datatype type)
{
    MPI_Get_address(addr, &e->displs[e->n]);
    e->lens[e->n] = len;
    e->types[e->n++] = type;
}

/* len consecutive receive blocks from (i + j) mod p, split where they wrap. */
static void add_ring(zc_t *z, entries_t *e, int j, int len)
{
    int first = (z->i + j) % z->p, head = z->p - first < len ? z->p - first : len;
    add(e, pcoll__a2a_rbuf(z->a, first), head, z->t.rblk);
    if (len > head)
        add(e, pcoll__a2a_rbuf(z->a, 0), len - head, z->t.rblk);
}

static void add_inter(zc_t *z, entries_t *e, int j, int len)
{
    add(e, z->inter + (MPI_Aint)j * z->t.sigext, len, z->t.sig);
}

/* Elements j .. j+len-1 of round k: all share the parity of j's high bits. */
static void add_run(zc_t *z, unsigned k, int j, int len)
{
    int odd = pcoll__bits_from((unsigned)j, k) % 2 == 1, from = j;
    if (odd)
        add_ring(z, &z->recv, j, len);
    else
        add_inter(z, &z->recv, j, len);
    if (((unsigned)j & (k - 1u)) == 0) {
        add(&z->send, pcoll__a2a_sbuf(z->a, (z->i - j + z->p) % z->p), 1, z->t.sblk);
        from++;
        len--;
    }
    if (len > 0 && odd)
        add_inter(z, &z->send, from, len);
    else if (len > 0)
        add_ring(z, &z->send, from, len);
}

static int commit_struct(pcoll_plan_t *plan, entries_t *e, MPI_Datatype *type)
{
    if (MPI_Type_create_struct(e->n, e->lens, e->displs, e->types, type) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, 1, "bruck_zerocopy: struct type");
    e->n = 0;
    return pcoll__plan_own_type(plan, type);
}

/* Round k: one struct for what is sent, one for what is received. */
static int round_types(pcoll_plan_t *plan, zc_t *z, unsigned k, int blocks, MPI_Datatype *st,
                       MPI_Datatype *rt)
{
    int j, rc;
    for (j = (int)k; j < z->p; j += 2 * (int)k) {
        int len = z->p - j < (int)k ? z->p - j : (int)k, t;
        if (blocks)
            add_run(z, k, j, len);
        else
            for (t = 0; t < len; t++)
                add_run(z, k, j + t, 1);
    }
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
               : pcoll__error(PCOLL_ERR_NOMEM, 1, "bruck_zerocopy: struct entries");
}

static int zerocopy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int blocks)
{
    zc_t z = {.a = a, .p = plan->size, .i = plan->rank};
    unsigned k;
    int rc;

    PCOLL_CHECK(pcoll__bruck_types(plan, a, &z.t), rc, out);
    if (!(z.inter = pcoll__plan_alloc(plan, (size_t)z.p * (size_t)z.t.sigext)))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "bruck_zerocopy: intermediate buffer");
    PCOLL_CHECK(alloc_entries(plan, &z.send, z.p + 2), rc, out);
    PCOLL_CHECK(alloc_entries(plan, &z.recv, z.p + 2), rc, out);
    for (k = 1; k < (unsigned)z.p; k <<= 1) {
        MPI_Datatype st, rt;
        PCOLL_CHECK(round_types(plan, &z, k, blocks, &st, &rt), rc, out);
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
