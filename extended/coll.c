/* extended/coll.c: gex_Coll_BroadcastNB, gex_Coll_ReduceToOneNB and
 * gex_Coll_ReduceToAllNB over the primordial team.
 *
 * Every member calls the collectives of a team in the same order (spec), so
 * a per-process sequence number names each instance on every rank.  Data
 * travels as AM Mediums (chunks of at most the Medium maximum) carrying
 * (seq, offset, total): the receiver files them in a record for that seq,
 * created by whichever comes first, the data or the local call, so early
 * arrivals are kept until the call.
 *   Broadcast   the root sends its buffer to every other rank and copies it
 *               to its own dst; a non-root completes when all bytes came.
 *   ReduceToOne every non-root sends its contribution to the root (offset
 *               rank * nbytes); the root reduces the n contributions in
 *               rank order (so GEX_OP_USER_NC is honoured) once all came.
 *   ReduceToAll ReduceToOne to rank 0, then a Broadcast of the result under
 *               the next sequence number (both taken by every rank at the
 *               call), sent by rank 0 when its reduction completes.
 * Completion is a COLL event whose test advances the instance; collectives
 * allocate (their records), unlike point-to-point operations.
 */
#include "extended/extended_internal.h"

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

#define GASNETE_COLL_HIDX (GASNETE_HANDLER_BASE + 10)

enum { K_BCAST, K_REDUCE, K_REDUCE_ALL };

typedef struct coll_rec {
    uint32_t seq;
    uint8_t *data;  /* arrivals: total bytes */
    size_t total;   /* bytes expected here */
    size_t got;     /* bytes arrived */
    struct coll_rec *next;
} coll_rec_t;

typedef struct {
    int kind, done, phase;
    uint32_t seq;
    gex_Rank_t root;
    void *dst;
    const void *src;
    size_t nbytes;  /* bytes of one contribution / of the broadcast */
    gex_DT_t dt;
    size_t dt_sz, dt_cnt;
    gex_OP_t op;
    gex_Coll_ReduceFn_t user_op;
    const void *user_cdata;
} coll_state_t;

static gasneti_mutex_t coll_lock = GASNETI_MUTEX_INITIALIZER;
static coll_rec_t *coll_recs;
static uint32_t coll_seq;

/* The record of seq (created with `total` bytes of room if absent).  Lock held. */
static coll_rec_t *rec_get(uint32_t seq, size_t total)
{
    coll_rec_t *r;
    for (r = coll_recs; r; r = r->next)
        if (r->seq == seq) return r;
    r = calloc(1, sizeof(*r));
    if (r) r->data = malloc(total ? total : 1);
    if (!r || !r->data) gasneti_fatalerror("collective: out of memory for %zu bytes", total);
    r->seq = seq;
    r->total = total;
    r->next = coll_recs;
    coll_recs = r;
    return r;
}

/* Removes seq's record if all its bytes came, returning it.  Lock held. */
static coll_rec_t *rec_take_if_full(uint32_t seq)
{
    for (coll_rec_t **p = &coll_recs; *p; p = &(*p)->next)
        if ((*p)->seq == seq) {
            coll_rec_t *r = *p;
            if (r->got != r->total) return NULL;
            *p = r->next;
            return r;
        }
    return NULL;
}

static void rec_free(coll_rec_t *r)
{
    free(r->data);
    free(r);
}

static void coll_reqh(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t off_lo,
                      gex_AM_Arg_t off_hi, gex_AM_Arg_t tot_lo, gex_AM_Arg_t tot_hi)
{
    (void)t;
    size_t off = (size_t)((uint64_t)(uint32_t)off_lo | ((uint64_t)(uint32_t)off_hi << 32));
    size_t total = (size_t)((uint64_t)(uint32_t)tot_lo | ((uint64_t)(uint32_t)tot_hi << 32));
    gasneti_mutex_lock(&coll_lock);
    coll_rec_t *r = rec_get((uint32_t)seq, total);
    if (r->total != total || off > total || n > total - off)
        gasneti_fatalerror("collective #%u: chunk [%zu, +%zu) of %zu does not fit the %zu bytes "
                           "expected (ranks called different collectives or sizes)",
                           (unsigned)seq, off, n, total, r->total);
    memcpy(r->data + off, buf, n);
    r->got += n;
    gasneti_mutex_unlock(&coll_lock);
}

void gasnete_coll_init(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETE_COLL_HIDX, (gex_AM_Fn_t)coll_reqh, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 5,
         NULL, "gasnete_coll_reqh"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
}

/* Sends src[0..n) to rank dest, landing at offset `base` of a `total`-byte record. */
static void send_data(gex_Rank_t dest, uint32_t seq, const void *src, size_t n, size_t base,
                      size_t total)
{
    size_t chunk = gex_AM_MaxRequestMedium(&gasneti_the_tm, dest, GEX_EVENT_NOW, 0, 5);
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        uint64_t o = base + off;
        gasnetc_AM_RequestMedium(&gasneti_the_tm, dest, GASNETE_COLL_HIDX,
                                 (const uint8_t *)src + off, len, GEX_EVENT_NOW, 5, 0,
                                 (gex_AM_Arg_t)seq, (gex_AM_Arg_t)(uint32_t)o,
                                 (gex_AM_Arg_t)(uint32_t)(o >> 32),
                                 (gex_AM_Arg_t)(uint32_t)total,
                                 (gex_AM_Arg_t)(uint32_t)((uint64_t)total >> 32));
    }
}

static void bcast_send(uint32_t seq, const void *src, size_t n)
{
    for (gex_Rank_t r = 1; r < gasneti_nodes; r++)
        send_data((gasneti_mynode + r) % gasneti_nodes, seq, src, n, 0, n);
}

/* ---- reduction arithmetic ------------------------------------------------------------- */
#define RED_LOOP(T, a, b, n, EXPR)             \
    do {                                       \
        const T *x_ = (const T *)(a);          \
        T *y_ = (T *)(b);                      \
        for (size_t i_ = 0; i_ < (n); i_++) {  \
            T p = x_[i_], q = y_[i_];          \
            y_[i_] = (T)(EXPR);                \
        }                                      \
    } while (0)
#define RED_TYPED(T, a, b, n, op, ints)                                           \
    do {                                                                          \
        switch (op) {                                                             \
        case GEX_OP_ADD: RED_LOOP(T, a, b, n, p + q); break;                      \
        case GEX_OP_MULT: RED_LOOP(T, a, b, n, p * q); break;                     \
        case GEX_OP_MIN: RED_LOOP(T, a, b, n, p < q ? p : q); break;              \
        case GEX_OP_MAX: RED_LOOP(T, a, b, n, p > q ? p : q); break;              \
        default: ints; break;                                                     \
        }                                                                         \
    } while (0)
#define RED_BITS(T, a, b, n, op)                                             \
    do {                                                                     \
        if ((op) == GEX_OP_AND) RED_LOOP(T, a, b, n, p & q);                 \
        else if ((op) == GEX_OP_OR) RED_LOOP(T, a, b, n, p | q);             \
        else RED_LOOP(T, a, b, n, p ^ q);                                    \
    } while (0)

/* b[i] = a[i] (op) b[i] for n elements. */
static void combine(const coll_state_t *s, const void *a, void *b)
{
    size_t n = s->dt_cnt;
    if (s->op == GEX_OP_USER || s->op == GEX_OP_USER_NC) {
        s->user_op(a, b, n, s->user_cdata);
        return;
    }
    switch (s->dt) {
    case GEX_DT_I32: RED_TYPED(int32_t, a, b, n, s->op, RED_BITS(uint32_t, a, b, n, s->op)); break;
    case GEX_DT_U32: RED_TYPED(uint32_t, a, b, n, s->op, RED_BITS(uint32_t, a, b, n, s->op)); break;
    case GEX_DT_I64: RED_TYPED(int64_t, a, b, n, s->op, RED_BITS(uint64_t, a, b, n, s->op)); break;
    case GEX_DT_U64: RED_TYPED(uint64_t, a, b, n, s->op, RED_BITS(uint64_t, a, b, n, s->op)); break;
    case GEX_DT_FLT: RED_TYPED(float, a, b, n, s->op, (void)0); break;
    default: RED_TYPED(double, a, b, n, s->op, (void)0); break;
    }
}

/* Root: reduces contributions 0..n-1 (rank order) into dst. */
static void reduce_into(const coll_state_t *s, uint8_t *all)
{
    size_t nb = s->nbytes;
    uint8_t *acc = all; /* acc = c0; then c_r = acc (op) c_r; acc = c_r */
    for (gex_Rank_t r = 1; r < gasneti_nodes; r++) {
        uint8_t *c = all + (size_t)r * nb;
        combine(s, acc, c);
        acc = c;
    }
    memcpy(s->dst, acc, nb);
}

/* Advances instance s; returns 1 when it is complete on this rank. */
static int coll_advance(coll_state_t *s)
{
    if (s->done) return 1;
    gasneti_mutex_lock(&coll_lock);
    coll_rec_t *r = rec_take_if_full(s->seq + (uint32_t)s->phase);
    gasneti_mutex_unlock(&coll_lock);
    if (!r) return 0;
    if (s->kind == K_BCAST || s->phase == 1) {
        memcpy(s->dst, r->data, s->nbytes);
        s->done = 1;
    } else { /* a root's reduction */
        memcpy(r->data + (size_t)gasneti_mynode * s->nbytes, s->src, s->nbytes);
        reduce_into(s, r->data);
        if (s->kind == K_REDUCE_ALL) bcast_send(s->seq + 1, s->dst, s->nbytes);
        s->done = 1;
    }
    rec_free(r);
    return 1;
}

static int coll_test(gasnete_op_t *op)
{
    coll_state_t *s = (coll_state_t *)(uintptr_t)op->coll_data;
    if (!coll_advance(s)) return 0;
    free(s);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* Starts instance s (already filled); returns its event. */
static gex_Event_t coll_start(coll_state_t *s)
{
    gex_Rank_t me = gasneti_mynode, n = gasneti_nodes;
    int root = me == s->root;
    if (s->nbytes == 0) {
        s->done = 1; /* nothing travels: complete everywhere */
    } else if (s->kind == K_BCAST) {
        if (root) {
            bcast_send(s->seq, s->src, s->nbytes);
            if (s->dst != s->src) memmove(s->dst, s->src, s->nbytes);
            s->done = 1;
        }
    } else if (!root) {
        send_data(s->root, s->seq, s->src, s->nbytes, (size_t)me * s->nbytes,
                  (size_t)n * s->nbytes);
        if (s->kind == K_REDUCE) s->done = 1;
        else s->phase = 1; /* wait for rank 0's broadcast of the result */
    }
    if (!s->done && root && s->kind != K_BCAST) { /* the root's own contribution counts as arrived */
        gasneti_mutex_lock(&coll_lock);
        coll_rec_t *r = rec_get(s->seq, (size_t)n * s->nbytes);
        r->got += s->nbytes;
        gasneti_mutex_unlock(&coll_lock);
    }
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    op->ev.kind = GASNETE_EV_COLL;
    op->coll_test = coll_test;
    op->coll_data = (uint64_t)(uintptr_t)s;
    if (coll_test(op)) {
        gasnete_op_free(op);
        return GEX_EVENT_INVALID;
    }
    return &op->ev;
}

static coll_state_t *coll_new(gex_TM_t tm, int kind, gex_Rank_t root, const char *fn)
{
    if (tm == GEX_TM_INVALID) gasneti_fatalerror("%s: tm is GEX_TM_INVALID", fn);
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", fn);
    if (gasnetc_in_handler()) gasneti_fatalerror("%s called from an AM handler", fn);
    if (root >= tm->size)
        gasneti_fatalerror("%s: root %u is out of range (team size %u)", fn, (unsigned)root,
                           (unsigned)tm->size);
    coll_state_t *s = calloc(1, sizeof(*s));
    if (!s) gasneti_fatalerror("%s: out of memory", fn);
    s->kind = kind;
    s->root = gasnetc_tm_to_jobrank(tm, root);
    s->seq = coll_seq;
    coll_seq += kind == K_REDUCE_ALL ? 2 : 1;
    return s;
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    (void)flags;
    coll_state_t *s = coll_new(tm, K_BCAST, root, "gex_Coll_BroadcastNB");
    s->dst = dst;
    s->src = src;
    s->nbytes = nbytes;
    return coll_start(s);
}

static gex_Event_t reduce(gex_TM_t tm, int kind, gex_Rank_t root, void *dst, const void *src,
                          gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                          gex_Coll_ReduceFn_t user_op, void *user_cdata, const char *fn)
{
    int user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
    size_t want = dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT ? 4
                  : dt == GEX_DT_I64 || dt == GEX_DT_U64 || dt == GEX_DT_DBL ? 8
                                                                               : 0;
    if (user ? !user_op : !(op == GEX_OP_ADD || op == GEX_OP_MULT || op == GEX_OP_MIN ||
                            op == GEX_OP_MAX || op == GEX_OP_AND || op == GEX_OP_OR ||
                            op == GEX_OP_XOR))
        gasneti_fatalerror("%s: op 0x%x is not a reduction operator (ADD, MULT, MIN, MAX, AND, "
                           "OR, XOR, or USER/USER_NC with user_op)", fn, (unsigned)op);
    if (!user && (!want || want != dt_sz))
        gasneti_fatalerror("%s: dt 0x%x with dt_sz %zu (built-in operators need "
                           "GEX_DT_I32/U32/I64/U64/FLT/DBL and their size)", fn, (unsigned)dt,
                           dt_sz);
    if (!user && (dt == GEX_DT_FLT || dt == GEX_DT_DBL) &&
        (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR))
        gasneti_fatalerror("%s: bitwise op 0x%x on a floating-point type", fn, (unsigned)op);
    coll_state_t *s = coll_new(tm, kind, root, fn);
    s->dst = dst;
    s->src = src;
    s->dt = dt;
    s->dt_sz = dt_sz;
    s->dt_cnt = dt_cnt;
    s->nbytes = dt_sz * dt_cnt;
    s->op = op;
    s->user_op = user_op;
    s->user_cdata = user_cdata;
    return coll_start(s);
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    (void)flags;
    return reduce(tm, K_REDUCE, root, dst, src, dt, dt_sz, dt_cnt, op, user_op, user_cdata,
                  "gex_Coll_ReduceToOneNB");
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    (void)flags;
    return reduce(tm, K_REDUCE_ALL, 0, dst, src, dt, dt_sz, dt_cnt, op, user_op, user_cdata,
                  "gex_Coll_ReduceToAllNB");
}
