/*
 * alltoallw: the algorithm table and the automatic choice.
 *
 * The direct algorithms are alltoall's builders and zero-copy Bruck is
 * alltoallv's (alltoallw/alltoallw.h): a type per peer changes what each
 * message or struct entry describes, not the schedule.  Persistent auto
 * weighs them as alltoallv's choice does (the cost model over the agreed
 * sizes, native unless a pcoll algorithm is predicted faster by the
 * margin); one-shot and local plans choose by p and the MPI alone; in
 * place the MPI's own serves (pairwise, with one block of scratch, when
 * requested or where the MPI is known to get it wrong); on one rank
 * `scattered` (a self message).
 */
#include "model/cost.h"
#include "select/select.h"

enum { W_LINEAR, W_PAIRWISE, W_SCATTERED, W_BRUCK_ZEROCOPY, W_NATIVE, W_INTER, W_AUTO };

static const pcoll__algo_t algos[] = {
    [W_LINEAR] = {"linear", "all receives preposted, then all sends; one type per peer",
                  pcoll__alltoall_linear, 0},
    [W_PAIRWISE] = {"pairwise", "p-1 exchange rounds; in place with one block of scratch",
                    pcoll__alltoall_pairwise, PCOLL__ALGO_INPLACE},
    [W_SCATTERED] = {"scattered", "cyclic order, at most pcoll_throttle exchanges in flight",
                     pcoll__alltoall_scattered, 0},
    [W_BRUCK_ZEROCOPY] = {"bruck_zerocopy",
                          "zero-copy Bruck: each peer's type an entry of the rounds' struct "
                          "types (nearly regular sizes, one basic type)",
                          pcoll__alltoallv_bruck_zerocopy, PCOLL__ALGO_COLLECTIVE},
    [W_NATIVE] = {"native",
                  "the MPI's own MPI_Alltoallw: auto's choice in place and where no pcoll "
                  "algorithm is expected to be faster",
                  pcoll__alltoallw_native, PCOLL__ALGO_INPLACE | PCOLL__ALGO_INTER},
    [W_INTER] = {"inter",
                 "intercommunicators: each rank exchanges its blocks with every rank of the other "
                 "group directly, in one round (alltoall's inter); auto's choice there",
                 pcoll__alltoall_inter, PCOLL__ALGO_INTER},
    [W_AUTO] = {"auto",
                "persistent: a tuning file's rule, else the cost model over every rank's "
                "sizes; one-shot: by p and the MPI (scattered or native); one rank: scattered; "
                "in place: native",
                NULL, 0},
};

const pcoll__algo_table_t pcoll__alltoallw_table = {
    "alltoallw", "PCOLL_ALLTOALLW_ALGORITHM", algos, (int)(sizeof algos / sizeof *algos)};

/* Persistent: the direct exchange or zero-copy Bruck, priced as for
 * alltoallv (direct: the mean block of the rank that receives the most;
 * zero-copy Bruck: slots of the largest), against the MPI's own. */
static int by_cost(const pcoll__a2av_args_t *v, const pcoll__cost_t *c, int p)
{
    long long mean = (v->maxtotal + p - 1) / p;
    double best = pcoll__cost_direct(c, p, mean);
    int algo = v->maxbytes > PCOLL__A2A_SCATTERED_MAX ? W_PAIRWISE : W_SCATTERED;
    if (pcoll__select_bruck_fits(v) && pcoll__alltoallv_regular(v) &&
        pcoll__cost_bruck_zerocopy(c, p, v->maxbytes) < best) {
        best = pcoll__cost_bruck_zerocopy(c, p, v->maxbytes);
        algo = W_BRUCK_ZEROCOPY;
    }
    return best * (1.0 + c->margin) < pcoll__cost_native_alltoallv(c, p, mean) ? algo : W_NATIVE;
}

/* The model's choice on one rank: its own message, never the MPI's call
 * (Open MPI 4.1 and 5 move nothing in a blocking MPI_Alltoallw on a
 * one-rank communicator).  A tuning rule's choice stands. */
static int one_rank(const pcoll__shape_t *s, int algo)
{
    return s->p == 1 && algo == W_NATIVE ? W_SCATTERED : algo;
}

int pcoll__select_alltoallw(const pcoll__a2av_args_t *v, const pcoll__shape_t *s,
                            pcoll__opts_t *tuned)
{
    pcoll__cost_t c = pcoll__select_cost(s);
    int ruled;
    if (!pcoll__algo_is_auto(&pcoll__alltoallw_table, v->a.opts.algorithm))
        return v->a.opts.algorithm;
    if (v->a.inplace)
        return pcoll__alltoallw_native_ok(v) ? W_NATIVE : W_PAIRWISE;
    /* One-shot and local: every rank must choose alike without the others'
     * sizes: a direct exchange where the MPI's cost per call outweighs
     * pcoll's per message (both for empty messages), else the MPI's own. */
    if (v->maxbytes < 0)
        return one_rank(s, pcoll__cost_direct(&c, s->p, 0) * (1.0 + c.margin) <
                                   pcoll__cost_native_alltoallv(&c, s->p, 0)
                               ? W_SCATTERED
                               : W_NATIVE);
    ruled = pcoll__select_rule(&pcoll__alltoallw_table, "alltoallw", &v->a.opts, s,
                               s->p > 0 ? v->maxtotal / s->p : 0, NULL, NULL, tuned);
    return ruled >= 0 ? ruled : one_rank(s, by_cost(v, &c, s->p));
}
