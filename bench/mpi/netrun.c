/* roofbench network under MPI: placement, the point-to-point tests (as
 * the OSU micro-benchmarks define them), the all-reduce (as nccl-tests
 * report it) and the sharded matmul, every point verified on every rank.
 *
 * Timing protocol, the same for every quantity: one untimed operation,
 * then the number of operations per sample doubled (or scaled) until the
 * slowest rank's sample lasts min_time, the decision taken from the
 * slowest rank's time so that every rank makes the same one; then the
 * samples, each opened by a barrier and closed by the slowest rank's time
 * (MPI_MAX), divided by the operations in it. */
#include "netrun.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "interrupt.h"
#include "pin.h"
#include "progress.h"
#include "ref.h"
#include "timer.h"

void openblas_set_num_threads(int n);

enum { ALIGN = 4096 };

static int world_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int world_size(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int netrun_agree(int rc, rb_err *e)
{
    const int me = world_rank();
    int worst;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (worst == RB_OK)
        return RB_OK;
    /* the lowest failing rank tells rank 0 */
    int who = rc != RB_OK ? me : world_size(), first;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first != 0) {
        if (me == first)
            MPI_Send(e->msg, (int)sizeof(e->msg), MPI_CHAR, 0, 99,
                     MPI_COMM_WORLD);
        else if (me == 0) {
            char msg[sizeof(e->msg)];
            MPI_Recv(msg, (int)sizeof(msg), MPI_CHAR, first, 99, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            msg[sizeof(msg) - 1] = 0;
            rb_fail(e, worst, "rank %d: %s", first, msg);
        }
    }
    return worst;
}

/* ---- placement ----------------------------------------------------------- */

/* Pins this rank within its host and checks that no two ranks of the
 * host share a PU (unless oversubscribed). Each rank plans on the PUs it
 * may use: all of them when started with --bind-to none (then local rank
 * i takes core i), its own core when mpirun bound it (then it stays
 * there). pus gets the binding, host the host's name. Collective over the
 * host's ranks; this rank's status (the others' failures are agreed on
 * after). */
static int pin_local(hwloc_topology_t topo, int oversubscribe, char *host,
                     char *pus, size_t puslen, rb_err *e)
{
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank(),
                        MPI_INFO_NULL, &local);
    int lr, nlocal;
    MPI_Comm_rank(local, &lr);
    MPI_Comm_size(local, &nlocal);
    int rc = RB_OK;
    const int ncores = pin_ncores(topo);
    int hostlen = 0;
    MPI_Get_processor_name(host, &hostlen);
    if (ncores < 1)
        rc = rb_fail(e, RB_EINPUT, "no usable core (hwloc)");
    else if (nlocal > ncores && ncores > 1 && !oversubscribe)
        rc = rb_fail(e, RB_EINPUT,
                     "%d ranks on %s, which has %d usable core%s: fewer ranks, "
                     "or --oversubscribe to share cores",
                     nlocal, host, ncores, rb_plural(ncores));
    pin_plan plan = {0};
    if (!rc)
        rc = pin_plan_make(topo, ncores, &plan, e);
    if (!rc)
        rc = pin_bind_self(topo, plan.pu[lr % ncores], e);
    pin_plan_free(&plan);
    if (!rc)
        pin_self_string(topo, pus, puslen);
    char *all = calloc((size_t)nlocal, puslen);
    if (!all)
        rc = rb_fail(e, RB_EINPUT, "out of memory");
    int worst;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, local);
    if (worst == RB_OK) {
        MPI_Allgather(pus, (int)puslen, MPI_CHAR, all, (int)puslen, MPI_CHAR,
                      local);
        for (int i = 0; i < nlocal && !rc && !oversubscribe; i++)
            if (i != lr && strcmp(all + (size_t)i * puslen, pus) == 0)
                rc = rb_fail(e, RB_EINPUT,
                             "local ranks %d and %d of %s are both bound to PU "
                             "%s: give each rank its own core (mpirun "
                             "--bind-to core or none), or --oversubscribe",
                             lr < i ? lr : i, lr < i ? i : lr, host, pus);
    }
    free(all);
    MPI_Comm_free(&local);
    return rc;
}

/* Rank 0's account of the n ranks from their hosts and bindings (each
 * `stride` bytes apart): how many hosts, the partner (the first rank on
 * another host, else rank 1), the link's label and the MPI library. */
static void describe_ranks(net_result *r, int n, const char *hosts,
                           const char *bind, size_t stride)
{
    r->ranks = n;
    r->hosts = 0;
    for (int i = 0; i < n; i++) {
        const char *h = hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(h, hosts + (size_t)j * MPI_MAX_PROCESSOR_NAME) == 0;
        r->hosts += !seen;
        if (i < NET_MAX_RANKS)
            snprintf(r->binding[i], sizeof(r->binding[i]), "%s",
                     bind + (size_t)i * stride);
    }
    r->peer = n > 1 ? 1 : 0;
    for (int i = 1; i < n; i++)
        if (strcmp(hosts, hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME)) {
            r->peer = i;
            break;
        }
    int shared = 0; /* two ranks on one PU (--oversubscribe) */
    for (int i = 0; i < n && i < NET_MAX_RANKS; i++)
        for (int j = 0; j < i; j++)
            shared |= strcmp(r->binding[i], r->binding[j]) == 0;
    if (r->hosts == 1)
        snprintf(r->label, sizeof(r->label),
                 "intra-node shared memory (%d ranks on one host%s)", n,
                 shared ? "; oversubscribed: ranks share cores" : "");
    else
        snprintf(r->label, sizeof(r->label),
                 "interconnect (%d ranks on %d hosts%s)", n, r->hosts,
                 shared ? "; oversubscribed: ranks share cores" : "");
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n,")] = 0;
    snprintf(r->mpi_version, sizeof(r->mpi_version), "%.150s", ver);
}

int netrun_place(hwloc_topology_t topo, int oversubscribe, net_result *r,
                 rb_err *e)
{
    const int me = world_rank(), n = world_size();
    char pus[128] = "", host[MPI_MAX_PROCESSOR_NAME] = "";
    int rc = pin_local(topo, oversubscribe, host, pus, sizeof(pus), e);
    rc = netrun_agree(rc, e);
    if (rc)
        return rc;
    /* rank 0 learns every rank's host and binding */
    char mine[96];
    snprintf(mine, sizeof(mine), "%.40s:%.50s", host, pus);
    char *bind = me == 0 ? calloc((size_t)n, sizeof(mine)) : NULL;
    char *hosts = me == 0 ? calloc((size_t)n, MPI_MAX_PROCESSOR_NAME) : NULL;
    rc = netrun_agree(me == 0 && (!bind || !hosts)
                          ? rb_fail(e, RB_EINPUT, "out of memory")
                          : RB_OK,
                      e);
    if (rc) {
        free(bind);
        free(hosts);
        return rc;
    }
    MPI_Gather(mine, (int)sizeof(mine), MPI_CHAR, bind, (int)sizeof(mine),
               MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts,
               MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    int peer = n > 1 ? 1 : 0;
    if (me == 0) {
        describe_ranks(r, n, hosts, bind, sizeof(mine));
        peer = r->peer;
    }
    free(bind);
    free(hosts);
    MPI_Bcast(&peer, 1, MPI_INT, 0, MPI_COMM_WORLD);
    r->peer = peer;
    r->ranks = n;
    return RB_OK;
}

/* ---- the timing protocol ------------------------------------------------- */

typedef int (*net_op)(void *ctx, uint64_t iters);

/* Times op on comm (all of its ranks call). scale multiplies seconds per
 * operation (1/2: a round trip's one way). */
static int timed(MPI_Comm comm, const net_plan *p, net_op op, void *ctx,
                 double scale, net_timing *t)
{
    int rc = op(ctx, 1);
    uint64_t iters = 1;
    for (int round = 0; !rc && round < 40; round++) {
        MPI_Barrier(comm);
        const double t0 = timer_now();
        rc = op(ctx, iters);
        double dt = timer_now() - t0, worst;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (worst >= p->min_time || iters >= (1ull << 40))
            break;
        const double grow = worst > 0 ? 1.25 * p->min_time / worst : 100;
        iters = (uint64_t)ceil((double)iters * (grow < 2     ? 2
                                                : grow > 100 ? 100
                                                             : grow));
    }
    t->iters = iters;
    t->n = 0;
    for (int s = 0; !rc && s < p->samples && s < NET_MAX_SAMPLES; s++) {
        MPI_Barrier(comm);
        const double t0 = timer_now();
        rc = op(ctx, iters);
        double dt = timer_now() - t0, worst;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
        t->s[t->n++] = worst / (double)iters * scale;
    }
    return rc;
}

/* ---- point to point ------------------------------------------------------ */

static unsigned char pattern(size_t j, int rank, uint64_t bytes)
{
    return (unsigned char)(j * 7u + (size_t)rank * 13u + (size_t)bytes * 3u +
                           1u);
}

static void fill(unsigned char *b, size_t n, int rank, uint64_t bytes)
{
    for (size_t j = 0; j < n; j++)
        b[j] = pattern(j, rank, bytes);
}

static void spoil(unsigned char *b, size_t n, int rank, uint64_t bytes)
{
    for (size_t j = 0; j < n; j++)
        b[j] = (unsigned char)~pattern(j, rank, bytes);
}

static int check(const unsigned char *b, size_t n, int from, uint64_t bytes,
                 const char *what, rb_err *e)
{
    for (size_t j = 0; j < n; j++)
        if (b[j] != pattern(j, from, bytes))
            return rb_fail(e, RB_EMEASURE,
                           "%s of %llu bytes from rank %d: byte %zu is %u, "
                           "expected %u",
                           what, (unsigned long long)bytes, from, j, b[j],
                           pattern(j, from, bytes));
    return RB_OK;
}

typedef struct {
    MPI_Comm pair;
    int me; /* 0 or 1 in pair                                 */
    unsigned char *sbuf, *rbuf;
    size_t bytes;
    int window;
} p2p_ctx;

static int pingpong(void *v, uint64_t iters)
{
    p2p_ctx *c = v;
    const int n = (int)c->bytes, other = 1 - c->me;
    for (uint64_t i = 0; i < iters; i++) {
        if (c->me == 0) {
            MPI_Send(c->sbuf, n, MPI_BYTE, other, 1, c->pair);
            MPI_Recv(c->rbuf, n, MPI_BYTE, other, 1, c->pair,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->rbuf, n, MPI_BYTE, other, 1, c->pair,
                     MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, n, MPI_BYTE, other, 1, c->pair);
        }
    }
    return RB_OK;
}

static int window(void *v, uint64_t iters)
{
    p2p_ctx *c = v;
    const int n = (int)c->bytes, other = 1 - c->me;
    MPI_Request req[NET_WINDOW];
    char ack = 0;
    for (uint64_t i = 0; i < iters; i++) {
        if (c->me == 0) {
            for (int k = 0; k < c->window; k++)
                MPI_Isend(c->sbuf, n, MPI_BYTE, other, 2, c->pair, &req[k]);
            MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, other, 3, c->pair, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < c->window; k++)
                MPI_Irecv(c->rbuf + (size_t)k * c->bytes, n, MPI_BYTE, other, 2,
                          c->pair, &req[k]);
            MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, other, 3, c->pair);
        }
    }
    return RB_OK;
}

/* The pair's message buffers: the largest message to send, the largest
 * window to receive. Collective (the ranks agree on the outcome). */
static int p2p_buffers(const net_plan *p, int in_pair, p2p_ctx *c, rb_err *e)
{
    const uint64_t most = p->sizes[p->nsizes - 1];
    const size_t rbytes = (size_t)net_receive_bytes(p);
    int rc = RB_OK;
    if (in_pair) {
        c->sbuf =
            aligned_alloc(ALIGN, ((size_t)most + ALIGN - 1) / ALIGN * ALIGN);
        c->rbuf = aligned_alloc(ALIGN, (rbytes + ALIGN - 1) / ALIGN * ALIGN);
        if (!c->sbuf || !c->rbuf)
            rc = rb_fail(e, RB_EINPUT,
                         "out of memory for %zu bytes of message buffers",
                         (size_t)most + rbytes);
    }
    return netrun_agree(rc, e);
}

/* One size of the ping-pong (part 0) or the windowed bandwidth (part 1)
 * on the pair: the messages filled, timed, and checked (ping-pong: both
 * ends; the window: the receiver, every buffer of it). This rank's
 * status. */
static int p2p_point(const net_plan *p, p2p_ctx *c, int part, int other,
                     net_point *pt, rb_err *e)
{
    const uint64_t bytes = pt->bytes;
    c->bytes = (size_t)bytes;
    c->window = pt->window;
    fill(c->sbuf, c->bytes, world_rank(), bytes);
    spoil(c->rbuf, c->bytes * (size_t)pt->window, other, bytes);
    int rc = timed(c->pair, p, part == 0 ? pingpong : window, c,
                   part == 0 ? 0.5 : 1.0, &pt->t);
    if (!rc && (part == 0 || c->me == 1))
        for (int k = 0; !rc && k < pt->window; k++)
            rc = check(c->rbuf + (size_t)k * c->bytes, c->bytes, other, bytes,
                       part == 0 ? "a ping-pong message"
                                 : "a windowed message",
                       e);
    return rc;
}

static int point_to_point(const net_plan *p, net_result *r, int (*stop)(void),
                          rb_err *e)
{
    const int me = world_rank(), n = world_size();
    if (n < 2)
        return RB_OK;
    const int in_pair = me == 0 || me == r->peer;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, me, &pair);
    p2p_ctx c = {.pair = pair, .me = me == 0 ? 0 : 1};
    int rc = p2p_buffers(p, in_pair, &c, e);
    const int other = me == 0 ? r->peer : 0;
    for (int part = 0; !rc && part < 2 && !r->interrupted; part++) {
        const unsigned which = part == 0 ? NET_LATENCY : NET_BANDWIDTH;
        if (!(p->parts & which))
            continue;
        for (size_t i = 0; !rc && i < p->nsizes; i++) {
            int halt = me == 0 && stop();
            MPI_Bcast(&halt, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (halt) {
                r->interrupted = 1;
                break;
            }
            const uint64_t bytes = p->sizes[i];
            if (me == 0)
                progress_note("network: %s, %llu bytes (%zu of %zu)",
                              part == 0 ? "ping-pong latency"
                                        : "windowed bandwidth",
                              (unsigned long long)bytes, i + 1, p->nsizes);
            net_point pt = {.bytes = bytes,
                            .window = part == 1 ? net_window(p, bytes) : 1};
            if (in_pair)
                rc = p2p_point(p, &c, part, other, &pt, e);
            rc = netrun_agree(rc, e);
            if (!rc && me == 0) {
                interrupt_lock();
                if (part == 0)
                    r->latency[r->nlatency++] = pt;
                else
                    r->bandwidth[r->nbandwidth++] = pt;
                interrupt_unlock();
            }
        }
    }
    free(c.sbuf);
    free(c.rbuf);
    if (pair != MPI_COMM_NULL)
        MPI_Comm_free(&pair);
    return rc;
}

/* ---- all-reduce ---------------------------------------------------------- */

static MPI_Datatype mpi_type(rb_dtype dt)
{
    return dt == RB_F32 ? MPI_FLOAT : MPI_DOUBLE;
}

typedef struct {
    const void *send;
    void *recv;
    int count;
    MPI_Datatype type;
} ar_ctx;

static int allreduce_op(void *v, uint64_t iters)
{
    ar_ctx *c = v;
    for (uint64_t i = 0; i < iters; i++)
        MPI_Allreduce(c->send, c->recv, c->count, c->type, MPI_SUM,
                      MPI_COMM_WORLD);
    return RB_OK;
}

static void store(void *buf, size_t i, rb_dtype dt, double v)
{
    if (dt == RB_F32)
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}

static double load(const void *buf, size_t i, rb_dtype dt)
{
    return dt == RB_F32 ? (double)((const float *)buf)[i]
                        : ((const double *)buf)[i];
}

static int allreduce(const net_plan *p, net_result *r, int (*stop)(void),
                     rb_err *e)
{
    const int me = world_rank(), n = world_size();
    const uint64_t most = p->sizes[p->nsizes - 1];
    void *send =
        aligned_alloc(ALIGN, ((size_t)most + ALIGN - 1) / ALIGN * ALIGN);
    void *recv =
        aligned_alloc(ALIGN, ((size_t)most + ALIGN - 1) / ALIGN * ALIGN);
    int rc = send && recv ? RB_OK
                          : rb_fail(e, RB_EINPUT,
                                    "out of memory for the all-reduce buffers");
    rc = netrun_agree(rc, e);
    for (int d = 0; !rc && d < p->ndtypes && !r->interrupted; d++) {
        const rb_dtype dt = p->dtypes[d];
        const size_t el = rb_dtype_size(dt);
        for (size_t i = 0; !rc && i < p->nsizes; i++) {
            const uint64_t bytes = p->sizes[i];
            if (bytes < el || bytes % el)
                continue;
            int halt = me == 0 && stop();
            MPI_Bcast(&halt, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (halt) {
                r->interrupted = 1;
                break;
            }
            if (me == 0)
                progress_note("network: all-reduce %s, %llu bytes (%zu of %zu)",
                              rb_dtype_name(dt), (unsigned long long)bytes,
                              i + 1, p->nsizes);
            const size_t count = (size_t)(bytes / el);
            /* small integers: every sum is exact in both dtypes */
            for (size_t j = 0; j < count; j++) {
                store(send, j, dt, (double)(me + 1) + (double)(j % 7));
                store(recv, j, dt, -1.0);
            }
            ar_ctx c = {send, recv, (int)count, mpi_type(dt)};
            net_point pt = {.bytes = bytes, .window = 1};
            rc = timed(MPI_COMM_WORLD, p, allreduce_op, &c, 1.0, &pt.t);
            for (size_t j = 0; !rc && j < count; j++) {
                const double want =
                    (double)n * (n + 1) / 2.0 + (double)n * (double)(j % 7);
                if (load(recv, j, dt) != want)
                    rc = rb_fail(e, RB_EMEASURE,
                                 "all-reduce of %llu bytes (%s): element %zu "
                                 "is %g, expected %g",
                                 (unsigned long long)bytes, rb_dtype_name(dt),
                                 j, load(recv, j, dt), want);
            }
            rc = netrun_agree(rc, e);
            if (!rc && me == 0) {
                interrupt_lock();
                r->allreduce[dt][r->nallreduce[dt]++] = pt;
                interrupt_unlock();
            }
        }
    }
    free(send);
    free(recv);
    return rc;
}

/* ---- the sharded matmul -------------------------------------------------- */

static void team_barrier(const rb_team *t)
{
    (void)t;
}

typedef struct {
    const rb_kernel *k;
    rb_dtype dt;
    size_t el;
    size_t b, dl, f, fc;
    int chunks;
    void *a, *w;      /* this rank's [B,D/N] and [D/N,F]: W in
                         chunks of F/chunks columns, each a
                         contiguous [D/N,F/chunks]                */
    void *part, *sum; /* [B,F] in the same chunks: chunk j is a
                         contiguous [B,F/chunks]                   */
    MPI_Request *req;
    rb_team team;
} shard_ctx;

/* Chunk j of the partial product: [B,D/N] x [D/N,F/chunks]. Every step
 * computes the product chunk by chunk (one call when --chunks 1), so that
 * compute alone, in sequence and overlapped make the same calls. */
static void product(shard_ctx *c, int j)
{
    const rb_operands x = {
        .n = c->b,
        .p = c->dl,
        .m = c->fc,
        .a = c->a,
        .lda = c->dl,
        .b = (const char *)c->w + (size_t)j * c->dl * c->fc * c->el,
        .ldb = c->fc,
        .c = (char *)c->part + (size_t)j * c->b * c->fc * c->el,
        .ldc = c->fc,
        .team = c->k->threading == RB_SPLIT_TEAM ? &c->team : NULL};
    c->k->fn[c->dt](&x);
}

static void compute_all(shard_ctx *c)
{
    for (int j = 0; j < c->chunks; j++)
        product(c, j);
}

static int op_compute(void *v, uint64_t iters)
{
    shard_ctx *c = v;
    for (uint64_t i = 0; i < iters; i++)
        compute_all(c);
    return RB_OK;
}

static void reduce_all(shard_ctx *c)
{
    MPI_Allreduce(c->part, c->sum, (int)(c->b * c->f), mpi_type(c->dt), MPI_SUM,
                  MPI_COMM_WORLD);
}

static int op_comm(void *v, uint64_t iters)
{
    shard_ctx *c = v;
    for (uint64_t i = 0; i < iters; i++)
        reduce_all(c);
    return RB_OK;
}

static int op_seq(void *v, uint64_t iters)
{
    shard_ctx *c = v;
    for (uint64_t i = 0; i < iters; i++) {
        compute_all(c);
        reduce_all(c);
    }
    return RB_OK;
}

/* Chunk j's product, then its all-reduce started; the ones in flight are
 * driven (MPI_Testall) after each chunk, as a library without a progress
 * thread needs. */
static int op_overlap(void *v, uint64_t iters)
{
    shard_ctx *c = v;
    const size_t len = c->b * c->fc;
    for (uint64_t i = 0; i < iters; i++) {
        for (int j = 0; j < c->chunks; j++) {
            product(c, j);
            MPI_Iallreduce((char *)c->part + (size_t)j * len * c->el,
                           (char *)c->sum + (size_t)j * len * c->el, (int)len,
                           mpi_type(c->dt), MPI_SUM, MPI_COMM_WORLD,
                           &c->req[j]);
            int done;
            MPI_Testall(j + 1, c->req, &done, MPI_STATUSES_IGNORE);
        }
        MPI_Waitall(c->chunks, c->req, MPI_STATUSES_IGNORE);
    }
    return RB_OK;
}

static net_shard_shape shape_of(const shard_ctx *c)
{
    return (net_shard_shape){c->dt, c->b, c->dl, c->f, c->fc};
}

static int verify(const shard_ctx *c, const void *out, const double *x,
                  const double *y, const double *ya, double *z, double tol,
                  const char *what, double *max_err, rb_err *e)
{
    const net_shard_shape sh = shape_of(c);
    size_t row;
    const double err = net_freivalds_error(&sh, out, x, y, ya, z, &row);
    if (!(err <= tol))
        return rb_fail(e, RB_EMEASURE,
                       "%s: row %zu of the [%zu,%zu] output is off by %.3g of "
                       "its bound (tolerance %.3g)",
                       what, row, c->b, c->f, err, tol);
    if (err > *max_err)
        *max_err = err;
    return RB_OK;
}

/* This rank's columns of A and rows of W, as the unsharded product's
 * (W's rows in runs of fc columns, each run in place: net_w_index). */
static void fill_shard(const net_plan *p, shard_ctx *c, uint64_t d)
{
    const int me = world_rank();
    for (size_t i = 0; i < c->b; i++) {
        const uint64_t lo = (uint64_t)i * d + (uint64_t)me * c->dl;
        harness_fill((char *)c->a + i * c->dl * c->el, c->dt, p->seed, 0, lo,
                     lo + c->dl);
    }
    const net_shard_shape sh = shape_of(c);
    for (size_t k = 0; k < c->dl; k++)
        for (size_t j = 0; j < c->f; j += c->fc) {
            const uint64_t lo = ((uint64_t)me * c->dl + k) * c->f + j;
            const size_t run = c->f - j < c->fc ? c->f - j : c->fc;
            harness_fill((char *)c->w + net_w_index(&sh, k, j) * c->el, c->dt,
                         p->seed, 1, lo, lo + run);
        }
}

/* The kernel's workspace for one rank's partial product, in c->team. */
static int shard_team(shard_ctx *c, rb_err *e)
{
    void *shared = NULL, *own = NULL;
    int rc = RB_OK;
    if (c->k->workspace) {
        size_t shb = 0, ow = 0;
        c->k->workspace((rb_shape){c->b, c->dl, c->fc}, c->dt, 1, &shb, &ow);
        shared = shb ? aligned_alloc(ALIGN, (shb + ALIGN - 1) / ALIGN * ALIGN)
                     : NULL;
        own =
            ow ? aligned_alloc(ALIGN, (ow + ALIGN - 1) / ALIGN * ALIGN) : NULL;
        if ((shb && !shared) || (ow && !own))
            rc = rb_fail(e, RB_EINPUT, "out of memory for the workspace");
    }
    c->team = (rb_team){.tid = 0,
                        .nthreads = 1,
                        .barrier = team_barrier,
                        .shared = shared,
                        .own = own};
    return rc;
}

/* One step of a point: timed (the all-reduced sum cleared first where
 * `clear`), then its output checked on this rank against the Freivalds
 * vectors y, ya, the ranks agreeing on the outcome. */
typedef struct {
    net_op op;
    net_timing *t;
    const void *out;
    const double *y, *ya;
    double tol;
    const char *what;
    int clear;
} shard_step;

static int shard_steps(const net_plan *p, shard_ctx *c, const shard_step *st,
                       size_t n, const double *x, double *z, double *err,
                       rb_err *e)
{
    int rc = RB_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (st[i].clear)
            memset(c->sum, 0, c->b * c->f * c->el);
        rc = timed(MPI_COMM_WORLD, p, st[i].op, c, 1.0, st[i].t);
        if (!rc)
            rc = verify(c, st[i].out, x, st[i].y, st[i].ya, z, st[i].tol,
                        st[i].what, err, e);
        rc = netrun_agree(rc, e);
    }
    return rc;
}

static int shard_point(const net_plan *p, shard_ctx *c, uint64_t d,
                       net_shard_point *pt, rb_err *e)
{
    const int n = world_size();
    c->dl = (size_t)(d / (uint64_t)n);
    fill_shard(p, c, d);
    int rc = shard_team(c, e);
    double *x = malloc(c->f * sizeof(double)),
           *u = malloc(c->dl * sizeof(double) * 2 + 16),
           *v = malloc(c->b * sizeof(double) * 7 + 16);
    if (!x || !u || !v)
        rc = rb_fail(e, RB_EINPUT, "out of memory for the verification");
    rc = netrun_agree(rc, e);
    if (!rc) {
        double *y = v, *ya = v + c->b, *ys = v + 2 * c->b, *yas = v + 3 * c->b,
               *z = v + 4 * c->b;
        for (size_t j = 0; j < c->f; j++)
            x[j] = harness_value(p->seed, 5, j, RB_F64);
        const net_shard_shape sh = shape_of(c);
        net_freivalds_rhs(&sh, c->a, c->w, x, u, u + c->dl, y, ya);
        MPI_Allreduce(y, ys, (int)c->b, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(ya, yas, (int)c->b, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double tol_part = ref_tolerance(c->dt, c->dl + c->f);
        const double tol_sum = ref_tolerance(c->dt, d + (uint64_t)n + c->f);
        pt->tol = tol_sum;
        /* each quantity timed, then its output checked on this rank */
        const shard_step st[] = {
            {op_compute, &pt->compute, c->part, y, ya, tol_part,
             "this rank's partial product", 0},
            {op_comm, &pt->comm, c->sum, ys, yas, tol_sum,
             "the all-reduced product", 0},
            {op_seq, &pt->seq, c->sum, ys, yas, tol_sum,
             "the product, computed then all-reduced", 1},
            {op_overlap, &pt->overlap, c->sum, ys, yas, tol_sum,
             "the product, all-reduced chunk by chunk", 1}};
        double err = 0;
        rc = shard_steps(p, c, st, sizeof(st) / sizeof(st[0]), x, z, &err, e);
        double worst = err;
        MPI_Reduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        pt->max_err = worst;
        pt->verified = rc == RB_OK;
    }
    free(x);
    free(u);
    free(v);
    free(c->team.shared);
    free(c->team.own);
    return rc;
}

static int shard(const net_plan *p, net_result *r, int (*stop)(void), rb_err *e)
{
    const int me = world_rank(), n = world_size();
    uint64_t dmax = 0;
    for (size_t i = 0; i < p->nd; i++)
        dmax = p->d[i] > dmax ? p->d[i] : dmax;
    uint64_t bmax = 0;
    for (size_t i = 0; i < p->nbatch; i++)
        bmax = p->batch[i] > bmax ? p->batch[i] : bmax;
    if (p->kernel->threading == RB_SPLIT_LIBRARY)
        openblas_set_num_threads(1);
    int rc = RB_OK;
    size_t done = 0, total = (size_t)p->ndtypes * p->nbatch * p->nd;
    for (int di = 0; !rc && di < p->ndtypes && !r->interrupted; di++) {
        shard_ctx c = {.k = p->kernel,
                       .dt = p->dtypes[di],
                       .el = rb_dtype_size(p->dtypes[di]),
                       .f = (size_t)p->f,
                       .chunks = p->chunks,
                       .fc = (size_t)(p->f / (uint64_t)p->chunks)};
        const size_t dlmax = (size_t)(dmax / (uint64_t)n);
        const size_t out = (size_t)bmax * c.f * c.el;
        c.a = aligned_alloc(ALIGN, ((size_t)bmax * dlmax * c.el + ALIGN) /
                                       ALIGN * ALIGN);
        c.w =
            aligned_alloc(ALIGN, (dlmax * c.f * c.el + ALIGN) / ALIGN * ALIGN);
        c.part = aligned_alloc(ALIGN, (out + ALIGN) / ALIGN * ALIGN);
        c.sum = aligned_alloc(ALIGN, (out + ALIGN) / ALIGN * ALIGN);
        c.req = calloc((size_t)p->chunks, sizeof(*c.req));
        rc = c.a && c.w && c.part && c.sum && c.req
                 ? RB_OK
                 : rb_fail(e, RB_EINPUT,
                           "out of memory for the sharded matmul (D = %llu)",
                           (unsigned long long)dmax);
        rc = netrun_agree(rc, e);
        for (size_t bi = 0; !rc && bi < p->nbatch && !r->interrupted; bi++)
            for (size_t i = 0; !rc && i < p->nd && !r->interrupted; i++) {
                int halt = me == 0 && stop();
                MPI_Bcast(&halt, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (halt) {
                    r->interrupted = 1;
                    break;
                }
                c.b = (size_t)p->batch[bi];
                if (me == 0)
                    progress_note("network: sharded matmul %s, B %zu, D %llu, "
                                  "F %zu (%zu of %zu)",
                                  rb_dtype_name(c.dt), c.b,
                                  (unsigned long long)p->d[i], c.f, ++done,
                                  total);
                net_shard_point pt = {.dt = c.dt, .b = c.b, .d = p->d[i]};
                rc = shard_point(p, &c, p->d[i], &pt, e);
                if (!rc && me == 0 && r->nshard < r->shard_cap) {
                    interrupt_lock();
                    r->shard[r->nshard++] = pt;
                    interrupt_unlock();
                }
            }
        free(c.a);
        free(c.w);
        free(c.part);
        free(c.sum);
        free(c.req);
    }
    return rc;
}

int netrun_measure(const net_plan *p, net_result *r, int (*stop)(void),
                   rb_err *e)
{
    int rc = RB_OK;
    if (p->parts & (NET_LATENCY | NET_BANDWIDTH))
        rc = point_to_point(p, r, stop, e);
    if (!rc && !r->interrupted && (p->parts & NET_ALLREDUCE))
        rc = allreduce(p, r, stop, e);
    if (!rc && !r->interrupted && (p->parts & NET_SHARD))
        rc = shard(p, r, stop, e);
    int halted = r->interrupted;
    MPI_Bcast(&halted, 1, MPI_INT, 0, MPI_COMM_WORLD);
    r->interrupted = halted;
    return rc;
}
