/*
 * Cost model formulas (see cost.h and docs/algorithms.md).
 *
 * Radix-r Bruck on p ranks takes S = ceil(log_r p) steps; in each, up to r-1
 * messages leave at once (ports), each with about p/r blocks: per step
 * (r-1) alpha + beta * (blocks of the step) * n, plus copying every received
 * block once more (unpack) and 3p blocks for the rotations.  A direct exchange
 * sends p-1 messages of n bytes.  Zero-copy Bruck copies nothing but walks
 * two struct types per round.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "base/options.h"
#include "base/status.h"
#include "patterns/bruck.h"
#include "patterns/circulant.h"
#include "model/cost.h"

static double env_or(const char *name, double fallback)
{
    const char *s = getenv(name);
    char *end;
    double v;
    if (!s)
        return fallback;
    v = strtod(s, &end);
    return (end != s && *end == '\0' && v >= 0) ? v : fallback;
}

/* Defaults per MPI.  cpu and ddt were measured at np 2 on the development
 * machine (docs/algorithms.md, "native and the margin"): a derived-type
 * message of 64 KiB to 4 MiB costs MPICH 1.5e-10 to 6e-10 s more per byte
 * than the same bytes contiguous, Open MPI about 1e-10. */
typedef struct mpi_defaults {
    const char *name;  /* in MPI_Get_library_version's text */
    double cpu, ddt, call, pcall, rs_bytes;
    int defer, vself, tested;
    double local;      /* a message between ranks of one node, as a share of alpha */
} mpi_defaults_t;

/* local against `node`'s run on one node, priced one node barrier,
 * PCOLL__COST_NODE_BARRIER alpha a rank (the barrier is pcoll's own
 * cache-line traffic, the same under every MPI): MPICH 5's neighbourhood
 * call costs about 1 us an edge between two ranks of one node, Open MPI 5's
 * 0.12-0.3 us (0.19-0.3 us for a call of one edge of 8 B), where `node`'s
 * run of two ranks, priced 0.18 alpha, takes 0.14-0.21 us (np 2, 1-4
 * blocks of 8 B, one barrier a run): an edge of Open MPI's is 0.2 alpha. */
static const mpi_defaults_t defaults[] = {
    {"Open MPI", 3.0e-8, 1.0e-10, 0.0, 1.0e-7, 3.0e-10, 1, 0, 0, 0.2},
    {"MPICH", 5.0e-8, 3.0e-10, 5.0e-7, 8.0e-7, 2.0e-10, 0, 1, 1, 1.0},
};

/* The defaults into c. */
static void mpi_defaults(pcoll__cost_t *c)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    size_t i;
    c->cpu = 5.0e-8;
    c->ddt = 3.0e-10;
    c->call = 0.0;
    c->pcall = 0.0;
    c->rs_bytes = 0.0;
    c->defer = 0;
    c->vself = 0;
    c->tested = 0;
    c->local = 0.2;
    /* Allowed at any time: before MPI_Init, after MPI_Finalize, and in a
     * process that uses MPI sessions alone (which then gets its MPI's
     * defaults too). */
    if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[len < (int)sizeof version ? len : (int)sizeof version - 1] = '\0';
    for (i = 0; i < sizeof defaults / sizeof *defaults; i++)
        if (strstr(version, defaults[i].name)) {
            c->cpu = defaults[i].cpu;
            c->ddt = defaults[i].ddt;
            c->call = defaults[i].call;
            c->pcall = defaults[i].pcall;
            c->rs_bytes = defaults[i].rs_bytes;
            c->defer = defaults[i].defer;
            c->vself = defaults[i].vself;
            c->tested = defaults[i].tested;
            c->local = defaults[i].local;
            return;
        }
}

/* The parameters as the environment sets them (read anew). */
static pcoll__cost_t read_params(void)
{
    pcoll__cost_t c;
    mpi_defaults(&c);
    c.alpha = env_or("PCOLL_COST_ALPHA", 1.0e-6);
    c.beta = env_or("PCOLL_COST_BETA", 2.0e-10);
    c.gamma = env_or("PCOLL_COST_GAMMA", 1.0e-10);
    c.delta = env_or("PCOLL_COST_DELTA", 2.0e-8);
    c.cpu = env_or("PCOLL_COST_CPU", c.cpu);
    c.ddt = env_or("PCOLL_COST_DDT", c.ddt);
    c.call = env_or("PCOLL_COST_CALL", c.call);
    c.pcall = env_or("PCOLL_COST_PCALL", c.pcall);
    c.margin = env_or("PCOLL_COST_MARGIN", 0.1);
    c.port = env_or("PCOLL_COST_PORT", -1.0); /* < 0: by the shape (select.h) */
    c.barrier = env_or("PCOLL_COST_BARRIER", PCOLL__COST_NODE_BARRIER * c.alpha);
    c.shm = env_or("PCOLL_COST_SHM", -1.0);
    c.shm_set = c.shm >= 0;
    if (!c.shm_set)
        c.shm = PCOLL__COST_SHM;
    c.defer = env_or("PCOLL_COST_DEFER", c.defer) > 0;
    c.vself = env_or("PCOLL_COST_VSELF", c.vself) > 0;
    c.tested = env_or("PCOLL_COST_TESTED", c.tested) > 0;
    c.local = env_or("PCOLL_COST_LOCAL", c.local);
    c.native_linear = 0;
    return c;
}

/* Read once for each state of the environment (base/options.h's epoch, which
 * moves when a variable is set or unset): every choice asks, and reading
 * them (a dozen getenv and the MPI's version text) costs more than a short
 * call of the MPI's. */
typedef struct params_memo {
    int valid;
    unsigned long epoch;
    pcoll__cost_t c;
} params_memo_t;

static PCOLL__THREAD_LOCAL params_memo_t params_memo;

pcoll__cost_t pcoll__cost_params(void)
{
    params_memo_t *m = &params_memo;
    unsigned long epoch = pcoll__opts_epoch();
    if (!m->valid || m->epoch != epoch) {
        m->c = read_params();
        m->epoch = epoch;
        m->valid = 1;
    }
    return m->c;
}

pcoll__cost_t pcoll__cost_for(int started, int together, int persistent)
{
    pcoll__cost_t c = pcoll__cost_params();
    if (started && !(together && c.defer)) {
        c.call = c.pcall;
        c.native_linear = !persistent;
    }
    return c;
}

/* c without pcoll's own costs: the MPI's algorithms. */
static pcoll__cost_t as_native(const pcoll__cost_t *c)
{
    pcoll__cost_t n = *c;
    n.cpu = 0.0;
    n.ddt = 0.0;
    n.delta = 0.0;
    return n;
}

/* The blocks radix-r Bruck moves at its step of weight w: every j in
 * [0, p) whose digit there is not 0 (the sum over the digits d > 0 of
 * pcoll__bruck_digit_count, in O(1), so that a radix search over 2..p stays
 * O(p log p) at thousands of ranks). */
static long long step_blocks(int p, int r, long long w)
{
    long long period = w * r, rest = p % period;
    return p - (p / period * w + (rest < w ? rest : w));
}

/* Its messages: one per digit d > 0 that moves a block (every digit when a
 * whole period fits in p, else those with d * w < p % period). */
static int step_msgs(int p, int r, long long w)
{
    long long period = w * r, used = (p % period + w - 1) / w - 1;
    return p >= period ? r - 1 : (int)(used < r - 1 ? used : r - 1);
}

/* Blocks moved in all steps of radix-r Bruck. */
static long long bruck_blocks(int p, int r)
{
    long long w = 1, total = 0;
    for (; w < p; w *= r)
        total += step_blocks(p, r, w);
    return total;
}

/* Messages of radix-r Bruck: one per step and digit that moves a block. */
static int bruck_msgs(int p, int r)
{
    long long w = 1;
    int msgs = 0;
    for (; w < p; w *= r)
        msgs += step_msgs(p, r, w);
    return msgs;
}

double pcoll__cost_bruck(const pcoll__cost_t *c, int p, long long n, int r)
{
    int steps = pcoll__bruck_steps(p, r);
    long long blocks = bruck_blocks(p, r);
    return bruck_msgs(p, r) * (c->alpha + 2 * c->cpu) +
           (double)blocks * n * (c->beta + c->gamma + c->ddt) + 3.0 * p * n * c->gamma +
           (double)(blocks + steps) * c->delta;
}

double pcoll__cost_direct(const pcoll__cost_t *c, int p, long long n)
{
    return (p - 1) * (c->alpha + 2 * c->cpu + n * c->beta) + n * c->gamma;
}

double pcoll__cost_bruck_modified(const pcoll__cost_t *c, int p, long long n)
{
    long long blocks = bruck_blocks(p, 2);
    return pcoll__bruck_steps(p, 2) * (c->alpha + 2 * c->cpu) +
           (double)blocks * n * (c->beta + c->gamma + c->ddt) + (double)p * n * c->gamma +
           (double)blocks * c->delta;
}

double pcoll__cost_bruck_zerocopy(const pcoll__cost_t *c, int p, long long n)
{
    long long blocks = bruck_blocks(p, 2);
    return pcoll__bruck_steps(p, 2) * (c->alpha + 2 * c->cpu) +
           (double)blocks * n * (c->beta + c->ddt) + 2.0 * (double)blocks * c->delta;
}

/* vself: the own block a message after the others, not a copy: its bytes
 * at beta - gamma (alltoallv, measured from 64 KiB, where the latency does
 * not show), and its latency where the message is the exchange's last
 * (alltoall's direct exchange up to PCOLL__COST_VSELF_ALLTOALL_MAX). */
static double self_message(const pcoll__cost_t *c, long long n, int latency)
{
    return c->vself ? (double)n * (c->beta - c->gamma) + (latency ? c->alpha : 0.0) : 0.0;
}

double pcoll__cost_native_alltoall(const pcoll__cost_t *c, int p, long long n)
{
    pcoll__cost_t m = as_native(c);
    if (!c->native_linear && p >= 8 && n <= PCOLL__COST_NATIVE_BRUCK_MAX)
        return pcoll__cost_bruck(&m, p, n, 2) + c->call;
    return pcoll__cost_direct(&m, p, n) + c->call +
           (n <= PCOLL__COST_VSELF_ALLTOALL_MAX ? self_message(c, n, 1) : 0.0);
}

double pcoll__cost_native_alltoallv(const pcoll__cost_t *c, int p, long long n)
{
    pcoll__cost_t m = as_native(c);
    return pcoll__cost_direct(&m, p, n) + self_message(c, n, 0) + c->call;
}

double pcoll__cost_nbr_native(const pcoll__cost_t *c, int d, long long b)
{
    return d * c->alpha + (double)b * c->beta + c->call;
}

double pcoll__cost_nbr_direct(const pcoll__cost_t *c, int d, long long b)
{
    return d * (c->alpha + 2 * c->cpu) + (double)b * c->beta;
}

double pcoll__cost_nbr_node(const pcoll__cost_t *c, int N, int m, int d, long long b)
{
    long long nodes, msgs;
    double shm = pcoll__cost_shm(c, m, (double)b);
    if (N <= 1)
        return (double)b * 2 * shm + m * c->barrier;
    nodes = (long long)m * d < N - 1 ? (long long)m * d : N - 1;
    msgs = (nodes + m - 1) / m;
    return (double)msgs * (c->alpha + 2 * c->cpu) + (double)b * (c->beta + 2 * shm) +
           2.0 * m * c->barrier;
}

double pcoll__cost_nbr_multi(const pcoll__cost_t *c, int N, int m, int ndims, long long n)
{
    long long nodes = 2LL * m < N - 1 ? 2LL * m : N - 1;
    long long msgs = (nodes + m - 1) / m;
    return ndims * ((double)msgs * (c->alpha + 2 * c->cpu) +
                    2.0 * n * (c->beta + 2 * pcoll__cost_shm(c, m, 2.0 * ndims * n)) +
                    3.0 * m * c->barrier);
}

/* The radix in [2, rmax] (at least 2) that cost t predicts fastest. */
static int fastest_radix(const pcoll__cost_t *c, int p, double n, int rmax,
                         double (*t)(const pcoll__cost_t *, int, double, int))
{
    int r, best = 2;
    double tbest = t(c, p, n, 2);
    for (r = 3; r <= rmax; r++) {
        double tr = t(c, p, n, r);
        if (tr < tbest) {
            tbest = tr;
            best = r;
        }
    }
    return best;
}

static double bruck_at(const pcoll__cost_t *c, int p, double n, int r)
{
    return pcoll__cost_bruck(c, p, (long long)n, r);
}

int pcoll__cost_best_radix(const pcoll__cost_t *c, int p, long long n)
{
    return fastest_radix(c, p, (double)n, p, bruck_at);
}

double pcoll__cost_bruck_v(const pcoll__cost_t *c, int p, double n, int r)
{
    long long blocks = bruck_blocks(p, r);
    return bruck_msgs(p, r) * (c->alpha + 2 * c->cpu) + (double)blocks * n * (c->beta + c->gamma) +
           (double)p * n * c->gamma + (double)(blocks + p) * c->delta;
}

int pcoll__cost_best_radix_v(const pcoll__cost_t *c, int p, double n)
{
    return fastest_radix(c, p, n, p, pcoll__cost_bruck_v);
}

/* hier's predicted time (cost.h).  one_link: a step's bytes leave through the
 * node's one network link (time = all of them), instead of through the
 * ports that send them (time = one port's share). */
static double hier_time(const pcoll__cost_t *c, int N, int m, int ports, long long z, int r,
                        int one_link)
{
    int s, steps = pcoll__bruck_steps(N, r), P = ports > 0 && ports < m ? ports : m;
    double t = 2.0 * N * (double)z / m * c->gamma + 2.0 * c->alpha;
    long long w = 1;
    for (s = 0; s < steps; s++, w *= r) {
        long long slots = step_blocks(N, r, w);
        int msgs = step_msgs(N, r, w), busy;
        busy = msgs < P ? msgs : P;
        busy = busy ? busy : 1;
        t += (double)((msgs + P - 1) / P) * c->alpha + c->alpha;
        t += (double)slots * z * c->beta / (one_link ? 1 : busy);
        t += s + 1 < steps ? (double)slots * z / busy * c->gamma : 0.0;
    }
    return t;
}

double pcoll__cost_hier(const pcoll__cost_t *c, int N, int m, int ports, long long z, int r)
{
    return hier_time(c, N, m, ports, z, r, 0);
}

/* The radices are compared with every step's bytes on the node's one link:
 * more steps send most bytes again through it, which spreading them over
 * the ports hides (at 156 nodes of 12 ranks and 10 B blocks that choice was
 * radix 13, 1.7x slower in simulation than one step).  pcoll__cost_hier
 * keeps the ports' share, as the flat algorithms' costs it is compared
 * with do not model a shared link either. */
int pcoll__cost_hier_radix(const pcoll__cost_t *c, int N, int m, int ports, long long z)
{
    int r, best = N > 2 ? N : 2;
    double tbest = hier_time(c, N, m, ports, z, best, 1);
    for (r = 2; r < N; r++) {
        double t = hier_time(c, N, m, ports, z, r, 1);
        if (t < tbest) {
            tbest = t;
            best = r;
        }
    }
    return best;
}

/* ceil(log2 p) */
static int log2_ceil(int p)
{
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

double pcoll__cost_rs_mst(const pcoll__cost_t *c, int p, double n)
{
    int l = log2_ceil(p);
    return l * (c->alpha + n * c->beta + n * c->gamma) + l * c->alpha +
           (p - 1.0) / p * n * c->beta + 4.0 * l * c->cpu;
}

double pcoll__cost_rs_ring(const pcoll__cost_t *c, int p, double n, int prepost)
{
    double alpha = prepost ? c->alpha / 2 : c->alpha;
    return (p - 1) * (alpha + 2 * c->cpu + n / p * c->beta + n / p * c->gamma) +
           (prepost ? c->alpha : 0.0);
}

double pcoll__cost_rs_node_ring(const pcoll__cost_t *c, int p, double n, double chunk)
{
    double b = n / p, chunks = b > chunk ? (double)(long long)((b + chunk - 1) / chunk) : 1.0;
    double flag = PCOLL__COST_NODE_FLAG / PCOLL__COST_NODE_BARRIER * c->barrier;
    return chunks * p * flag + (p + 1) * b * c->gamma;
}

double pcoll__cost_rs_node_direct(const pcoll__cost_t *c, int p, double n)
{
    return c->barrier * p + (n + n) * c->gamma;
}

double pcoll__cost_shm(const pcoll__cost_t *c, int m, double bytes)
{
    double shared = m * PCOLL__COST_SHM_RANK;
    if (c->shm_set)
        return c->shm;
    shared = shared >= c->shm ? c->shm : shared;
    return bytes <= PCOLL__COST_SHM_CACHED ? shared * PCOLL__COST_SHM_CACHED_SHARE : shared;
}

double pcoll__cost_args(int p)
{
    return PCOLL__COST_ARGS + p * PCOLL__COST_ARGS_PEER;
}

double pcoll__cost_hier_node(const pcoll__cost_t *c, int p, long long n, int barriers)
{
    return barriers * c->barrier * p +
           2.0 * p * (double)n * pcoll__cost_shm(c, p, (double)p * (double)n);
}

double pcoll__cost_rs_halving(const pcoll__cost_t *c, int p, double n)
{
    int l = log2_ceil(p), pof2 = 1 << (l - (p > 1 && (1 << l) != p ? 1 : 0));
    /* Other p: the extra ranks first fold their whole vector in and finally
     * get their block back. */
    double fold = pof2 == p ? 0.0 : 2 * c->alpha + n * (c->beta + c->gamma);
    /* Local copies: the vector into bit-reversed order (p' > 2), my block
     * out of the half buffers. */
    double copies = ((pof2 > 2 ? n : 0.0) + n / p) * c->gamma;
    return log2_ceil(pof2) * (c->alpha + 2 * c->cpu) +
           (pof2 - 1.0) / pof2 * n * (c->beta + c->gamma) + fold + copies;
}

double pcoll__cost_rs_circulant(const pcoll__cost_t *c, int p, double n, int r)
{
    /* p-1 blocks sent and reduced in ceil(log_r p) rounds of up to r-1
     * messages, the blocks the first round leaves empty copied (one for
     * r = 2 and p odd).  The first round's wrapped run is packed only up to
     * 8 KiB, less than a message's start-up: not charged (charging it made
     * the radix flip between sizes where the rounds decide). */
    double sent = (p - 1.0) / p * n;
    int k, j, q = pcoll__circulant_rounds(p, r), msgs = 0;
    int s1 = pcoll__circulant_skip(p, r, q - 1), left = 2 * s1 - p > 0 ? 2 * s1 - p : 0;
    for (k = 0; k < q; k++)
        for (j = 1; j < r && pcoll__circulant_port(pcoll__circulant_skip(p, r, k + 1),
                                                     pcoll__circulant_skip(p, r, k), j) > 0; j++)
            msgs++;
    double port = c->port < 0 ? PCOLL__COST_PORT_NETWORK : c->port;
    return q * c->alpha + (msgs - q) * port * c->alpha + 2 * msgs * c->cpu +
           sent * (c->beta + c->gamma) + left * n / p * c->gamma;
}

int pcoll__cost_rs_circulant_radix(const pcoll__cost_t *c, int p, double n)
{
    return fastest_radix(c, p, n, p < PCOLL__COST_RS_RADIX_MAX ? p : PCOLL__COST_RS_RADIX_MAX,
                         pcoll__cost_rs_circulant);
}

double pcoll__cost_native_rs(const pcoll__cost_t *c, int p, double n)
{
    pcoll__cost_t m = as_native(c);
    double halving = pcoll__cost_rs_halving(&m, p, n), pairwise = pcoll__cost_rs_ring(&m, p, n, 0);
    if (c->native_linear)
        return pairwise + n * c->rs_bytes + c->call;
    return (halving < pairwise ? halving : pairwise) + n * c->rs_bytes + c->call;
}
