/* extended/coll.c: data collectives over any team: gex_Coll_BroadcastNB,
 * gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB, and the data movement
 * the GASNet-1 collectives (coll_g1.c) and team creation (team.c) use:
 * scatter, gather, gather-all (allgather) and exchange.
 *
 * Every member calls the collectives of a team in the same order (spec), so
 * a per-team sequence number names each instance on every member.  Data
 * travels as AM Mediums (chunks of at most the Medium maximum) carrying
 * (team id, seq, offset, total): the receiver files them in a record for
 * (team, seq), created by whichever comes first, the data or the local
 * call, so early arrivals are kept until the call.  A record of n blocks
 * (gather kinds) counts the caller's own block as arrived at the call.
 *   Broadcast   the root sends its buffer to every other member.
 *   Scatter     the root sends block j to member j.
 *   Gather      every non-root sends its block to the root (offset rank).
 *   GatherAll   every member sends its block to every other member.
 *   Exchange    member i sends its block j to member j (offset i).
 *   ReduceToOne a Gather whose root reduces the n contributions in rank
 *               order (so GEX_OP_USER_NC is honoured) into dst.
 *   ReduceToAll ReduceToOne to rank 0, then a Broadcast of the result under
 *               the next sequence number, sent by rank 0 when its reduction
 *               completes.
 * Completion is a COLL event whose test advances the instance; collectives
 * allocate (their records), unlike point-to-point operations.
 */
#include "extended/team.h"
#include "extended/coll.h"

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

#define GASNETE_COLL_HIDX (GASNETE_HANDLER_BASE + 10)
#define COLL_NARGS 6

typedef struct coll_rec {
    uint32_t team, seq;
    uint8_t *data;  /* arrivals: total bytes */
    size_t total;   /* bytes expected here */
    size_t got;     /* bytes arrived */
    struct coll_rec *next;
} coll_rec_t;

typedef struct {
    int kind, done, phase;
    gex_TM_t tm;
    gex_Rank_t me, n, root;
    uint32_t seq;
    void *dst;
    const void *src;
    size_t nbytes; /* bytes of one block / of the broadcast */
    gex_DT_t dt;
    size_t dt_sz, dt_cnt;
    gex_OP_t op;
    gex_Coll_ReduceFn_t user_op;
    const void *user_cdata;
} coll_state_t;

static gasneti_mutex_t coll_lock = GASNETI_MUTEX_INITIALIZER;
static coll_rec_t *coll_recs;

/* The record of (team, seq), created with `total` bytes of room if absent.
 * Lock held. */
static coll_rec_t *rec_get(uint32_t team, uint32_t seq, size_t total)
{
    coll_rec_t *r;
    for (r = coll_recs; r; r = r->next)
        if (r->seq == seq && r->team == team) return r;
    r = calloc(1, sizeof(*r));
    if (r) r->data = malloc(total ? total : 1);
    if (!r || !r->data) gasneti_fatalerror("collective: out of memory for %zu bytes", total);
    r->team = team;
    r->seq = seq;
    r->total = total;
    r->next = coll_recs;
    coll_recs = r;
    return r;
}

/* Removes (team, seq)'s record if all its bytes came, returning it.  Lock held. */
static coll_rec_t *rec_take_if_full(uint32_t team, uint32_t seq)
{
    for (coll_rec_t **p = &coll_recs; *p; p = &(*p)->next)
        if ((*p)->seq == seq && (*p)->team == team) {
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

static size_t join64(gex_AM_Arg_t lo, gex_AM_Arg_t hi)
{
    return (size_t)((uint64_t)(uint32_t)lo | ((uint64_t)(uint32_t)hi << 32));
}

static void coll_reqh(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t team, gex_AM_Arg_t seq,
                      gex_AM_Arg_t off_lo, gex_AM_Arg_t off_hi, gex_AM_Arg_t tot_lo,
                      gex_AM_Arg_t tot_hi)
{
    (void)t;
    size_t off = join64(off_lo, off_hi), total = join64(tot_lo, tot_hi);
    gasneti_mutex_lock(&coll_lock);
    coll_rec_t *r = rec_get((uint32_t)team, (uint32_t)seq, total);
    if (r->total != total || off > total || n > total - off)
        gasneti_fatalerror("collective #%u of team id %u: chunk [%zu, +%zu) of %zu does not fit "
                           "the %zu bytes expected (members called different collectives or "
                           "sizes)",
                           (unsigned)seq, (unsigned)team, off, n, total, r->total);
    memcpy(r->data + off, buf, n);
    r->got += n;
    gasneti_mutex_unlock(&coll_lock);
}

void gasnete_coll_init(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETE_COLL_HIDX, (gex_AM_Fn_t)coll_reqh, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
         COLL_NARGS, NULL, "gasnete_coll_reqh"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
}

/* Sends src[0..n) to team rank dest, landing at offset `base` of a
 * `total`-byte record of instance seq. */
static void send_data(const coll_state_t *s, gex_Rank_t dest, uint32_t seq, const void *src,
                      size_t n, size_t base, size_t total)
{
    gex_Rank_t jr = gasnetc_tm_to_jobrank(s->tm, dest);
    size_t chunk = gex_AM_MaxRequestMedium(&gasneti_the_tm, jr, GEX_EVENT_NOW, 0, COLL_NARGS);
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        uint64_t o = base + off;
        gasnetc_AM_RequestMedium(&gasneti_the_tm, jr, GASNETE_COLL_HIDX,
                                 (const uint8_t *)src + off, len, GEX_EVENT_NOW, COLL_NARGS, 0,
                                 (gex_AM_Arg_t)s->tm->id, (gex_AM_Arg_t)seq,
                                 (gex_AM_Arg_t)(uint32_t)o, (gex_AM_Arg_t)(uint32_t)(o >> 32),
                                 (gex_AM_Arg_t)(uint32_t)total,
                                 (gex_AM_Arg_t)(uint32_t)((uint64_t)total >> 32));
    }
}

/* Sends src to every other member (a broadcast of instance seq). */
static void bcast_send(const coll_state_t *s, uint32_t seq, const void *src)
{
    for (gex_Rank_t i = 1; i < s->n; i++)
        send_data(s, (s->me + i) % s->n, seq, src, s->nbytes, 0, s->nbytes);
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
    for (gex_Rank_t r = 1; r < s->n; r++) {
        uint8_t *c = all + (size_t)r * nb;
        combine(s, acc, c);
        acc = c;
    }
    memcpy(s->dst, acc, nb);
}

/* 1 when this member receives a record of n blocks (its own counted). */
static int gets_blocks(const coll_state_t *s)
{
    switch (s->kind) {
    case GASNETE_COLL_GATHER:
    case GASNETE_COLL_REDUCE: return s->me == s->root;
    case GASNETE_COLL_REDUCE_ALL: return s->phase == 0 && s->me == s->root;
    case GASNETE_COLL_GATHER_ALL:
    case GASNETE_COLL_EXCHANGE: return 1;
    default: return 0;
    }
}

/* This member's own block of the source (what it sends to `dest`'s slot,
 * or keeps for itself). */
static const void *own_block(const coll_state_t *s, gex_Rank_t dest)
{
    if (s->kind == GASNETE_COLL_SCATTER || s->kind == GASNETE_COLL_EXCHANGE)
        return (const uint8_t *)s->src + (size_t)dest * s->nbytes;
    return s->src;
}

/* A record of n blocks is complete: the result goes to dst. */
static void finish_blocks(coll_state_t *s, coll_rec_t *r)
{
    size_t nb = s->nbytes, mine = (size_t)s->me * nb;
    if (s->kind == GASNETE_COLL_REDUCE || s->kind == GASNETE_COLL_REDUCE_ALL) {
        memcpy(r->data + mine, s->src, nb);
        reduce_into(s, r->data);
        if (s->kind == GASNETE_COLL_REDUCE_ALL) bcast_send(s, s->seq + 1, s->dst);
        return;
    }
    uint8_t *dst = s->dst;
    memcpy(dst, r->data, mine); /* every slot but ours, which may alias src */
    memcpy(dst + mine + nb, r->data + mine + nb, r->total - mine - nb);
    const void *own = own_block(s, s->me);
    if (dst + mine != own) memmove(dst + mine, own, nb);
}

/* Advances instance s; returns 1 when it is complete on this member. */
static int coll_advance(coll_state_t *s)
{
    if (s->done) return 1;
    gasneti_mutex_lock(&coll_lock);
    coll_rec_t *r = rec_take_if_full(s->tm->id, s->seq + (uint32_t)s->phase);
    gasneti_mutex_unlock(&coll_lock);
    if (!r) return 0;
    if (gets_blocks(s)) finish_blocks(s, r);
    else memcpy(s->dst, r->data, s->nbytes);
    s->done = 1;
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

/* Sends this member's part of instance s at initiation. */
static void coll_send(coll_state_t *s)
{
    gex_Rank_t me = s->me, n = s->n;
    size_t nb = s->nbytes, all = (size_t)n * nb;
    switch (s->kind) {
    case GASNETE_COLL_BCAST:
        if (me == s->root) bcast_send(s, s->seq, s->src);
        break;
    case GASNETE_COLL_SCATTER:
        if (me == s->root)
            for (gex_Rank_t i = 1; i < n; i++) {
                gex_Rank_t d = (me + i) % n;
                send_data(s, d, s->seq, own_block(s, d), nb, 0, nb);
            }
        break;
    case GASNETE_COLL_GATHER:
    case GASNETE_COLL_REDUCE:
    case GASNETE_COLL_REDUCE_ALL:
        if (me != s->root) send_data(s, s->root, s->seq, s->src, nb, (size_t)me * nb, all);
        break;
    default: /* GATHER_ALL, EXCHANGE */
        for (gex_Rank_t i = 1; i < n; i++) {
            gex_Rank_t d = (me + i) % n;
            send_data(s, d, s->seq, own_block(s, d), nb, (size_t)me * nb, all);
        }
        break;
    }
}

/* Starts instance s (already filled); returns its event. */
static gex_Event_t coll_start(coll_state_t *s)
{
    int root = s->me == s->root;
    if (s->nbytes == 0) {
        s->done = 1; /* nothing travels: complete everywhere */
    } else if (coll_send(s), gets_blocks(s)) { /* our own block counts as arrived */
        gasneti_mutex_lock(&coll_lock);
        coll_rec_t *r = rec_get(s->tm->id, s->seq, (size_t)s->n * s->nbytes);
        r->got += s->nbytes;
        gasneti_mutex_unlock(&coll_lock);
    } else if (root && (s->kind == GASNETE_COLL_BCAST || s->kind == GASNETE_COLL_SCATTER)) {
        const void *own = own_block(s, s->me);
        if (s->dst != own) memmove(s->dst, own, s->nbytes);
        s->done = 1;
    } else if (!root && (s->kind == GASNETE_COLL_GATHER || s->kind == GASNETE_COLL_REDUCE)) {
        s->done = 1;
    } else if (!root && s->kind == GASNETE_COLL_REDUCE_ALL) {
        s->phase = 1; /* wait for the root's broadcast of the result */
    }
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    op->ev.kind = GASNETE_EV_COLL;
    op->coll_test = coll_test;
    op->coll_wait = NULL;
    op->coll_data = (uint64_t)(uintptr_t)s;
    if (coll_test(op)) {
        gasnete_op_free(op);
        return GEX_EVENT_INVALID;
    }
    return &op->ev;
}

static coll_state_t *coll_new(gex_TM_t tm, int kind, gex_Rank_t root, size_t nbytes,
                              const char *fn)
{
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, fn);
    if (root >= tm->size)
        gasneti_fatalerror("%s: root %u is out of range (team size %u)", fn, (unsigned)root,
                           (unsigned)tm->size);
    coll_state_t *s = calloc(1, sizeof(*s));
    if (!s) gasneti_fatalerror("%s: out of memory", fn);
    s->kind = kind;
    s->tm = tm;
    s->me = tm->rank;
    s->n = tm->size;
    s->root = root;
    s->nbytes = nbytes;
    s->seq = __atomic_fetch_add(&t->coll_seq, kind == GASNETE_COLL_REDUCE_ALL ? 2U : 1U,
                                __ATOMIC_RELAXED);
    return s;
}

gex_Event_t gasnete_coll_move_nb(gex_TM_t tm, int kind, gex_Rank_t root, void *dst,
                                 const void *src, size_t nbytes, const char *fn)
{
    coll_state_t *s = coll_new(tm, kind, root, nbytes, fn);
    s->dst = dst;
    s->src = src;
    return coll_start(s);
}

void gasnete_coll_allgather(gex_TM_t tm, void *dst, const void *src, size_t nbytes)
{
    gex_Event_t ev = gasnete_coll_move_nb(tm, GASNETE_COLL_GATHER_ALL, 0, dst, src, nbytes,
                                          "team creation");
    if (ev != GEX_EVENT_INVALID) gex_Event_Wait(ev);
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    (void)flags;
    return gasnete_coll_move_nb(tm, GASNETE_COLL_BCAST, root, dst, src, nbytes,
                                "gex_Coll_BroadcastNB");
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
    coll_state_t *s = coll_new(tm, kind, root, dt_sz * dt_cnt, fn);
    s->dst = dst;
    s->src = src;
    s->dt = dt;
    s->dt_sz = dt_sz;
    s->dt_cnt = dt_cnt;
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
    return reduce(tm, GASNETE_COLL_REDUCE, root, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                  user_cdata, "gex_Coll_ReduceToOneNB");
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    (void)flags;
    return reduce(tm, GASNETE_COLL_REDUCE_ALL, 0, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                  user_cdata, "gex_Coll_ReduceToAllNB");
}
