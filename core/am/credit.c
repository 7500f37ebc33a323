/* core/am/credit.c: credit counting for AM flow control (see credit.h and
 * core/am/README).  Mechanism only: the limits come from credit_policy.c.
 *
 * Per peer, under the peer lock (PAR) or no lock (SEQ):
 *   avail         credits for our Requests to the peer (0..pp)
 *   bank          credits owed to the peer, not yet sent back (0..slack)
 *   rbuf_surplus  Reply buffers posted for Requests whose credit came back
 *                 piggybacked instead of with a Reply: they stay posted and
 *                 serve the next Requests, so no new buffer is posted then.
 *                 Invariant: (pp - avail) + rbuf_surplus <= pp.
 *   backlog       FIFO of caller-owned nodes waiting for a credit.
 * The shared total is only touched with atomics (PAR), so the peer lock is
 * a leaf lock and there is no lock ordering to respect.
 */
#include "core/am/credit.h"

#include <assert.h>

/* ---- the shared total: atomics in PAR, plain integers in SEQ ---------------------- */

#if defined(GASNET_PAR)
static int total_take(gasnetc_credit_total_t *t)
{
    int v = __atomic_load_n(&t->avail, __ATOMIC_RELAXED);
    while (v > 0)
        if (__atomic_compare_exchange_n(&t->avail, &v, v - 1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return 1;
    return 0;
}
static void total_give(gasnetc_credit_total_t *t, int n)
{
    __atomic_fetch_add(&t->avail, n, __ATOMIC_RELEASE);
}
static void total_waiting_add(gasnetc_credit_total_t *t, int n)
{
    __atomic_fetch_add(&t->waiting, n, __ATOMIC_RELAXED);
}
#define PEER_LOCK(p) pthread_mutex_lock(&(p)->lock)
#define PEER_UNLOCK(p) pthread_mutex_unlock(&(p)->lock)
#else
static int total_take(gasnetc_credit_total_t *t)
{
    if (t->avail <= 0) return 0;
    t->avail--;
    return 1;
}
static void total_give(gasnetc_credit_total_t *t, int n)
{
    t->avail += n;
}
static void total_waiting_add(gasnetc_credit_total_t *t, int n)
{
    t->waiting += n;
}
#define PEER_LOCK(p) ((void)(p))
#define PEER_UNLOCK(p) ((void)(p))
#endif

void gasnetc_credit_total_init(gasnetc_credit_total_t *total, int limit)
{
    assert(limit >= 1);
    total->limit = limit;
    total->avail = limit;
    total->waiting = 0;
}

int gasnetc_credit_total_waiting(const gasnetc_credit_total_t *total)
{
#if defined(GASNET_PAR)
    return __atomic_load_n(&total->waiting, __ATOMIC_RELAXED);
#else
    return total->waiting;
#endif
}

/* ---- peer setup ---------------------------------------------------------------------- */

void gasnetc_credit_init(gasnetc_credit_peer_t *peer, const gasnetc_credit_config_t *cfg,
                         gasnetc_credit_total_t *total)
{
    assert(cfg->pp >= 1 && cfg->pp <= GASNETC_CREDIT_PP_MAX);
    assert(cfg->slack >= 0 && cfg->slack < cfg->pp && cfg->slack <= GASNETC_CREDIT_WIRE_MAX);
    peer->total = total;
    peer->pp = cfg->pp;
    peer->slack = cfg->slack;
    peer->avail = cfg->pp;
    peer->bank = 0;
    peer->rbuf_surplus = 0;
    peer->backlog_len = 0;
    peer->head = peer->tail = NULL;
    peer->stat_granted = peer->stat_queued = 0;
    peer->stat_hidden = peer->stat_piggybacked = 0;
#if defined(GASNET_PAR)
    pthread_mutex_init(&peer->lock, NULL);
#endif
}

int gasnetc_credit_fini(gasnetc_credit_peer_t *peer)
{
    PEER_LOCK(peer);
    int left = peer->backlog_len;
    PEER_UNLOCK(peer);
#if defined(GASNET_PAR)
    pthread_mutex_destroy(&peer->lock);
#endif
    return left;
}

/* ---- granting ------------------------------------------------------------------------ */

/* Takes one peer credit (the caller already holds a total credit and has
 * checked avail > 0) and decides whether a Reply buffer must be posted. */
static unsigned take_locked(gasnetc_credit_peer_t *peer)
{
    unsigned flags = GASNETC_CREDIT_GRANTED;
    peer->avail--;
    if (peer->rbuf_surplus > 0)
        peer->rbuf_surplus--; /* a Reply buffer is already posted and unclaimed */
    else
        flags |= GASNETC_CREDIT_POST_RBUF;
    peer->stat_granted++;
    return flags;
}

/* Pops and grants backlogged nodes while both credits are available;
 * returns them as a chain, oldest first. */
static gasnetc_credit_node_t *drain_locked(gasnetc_credit_peer_t *peer)
{
    gasnetc_credit_node_t *first = NULL, **link = &first;
    int n = 0;
    while (peer->head && peer->avail > 0 && total_take(peer->total)) {
        gasnetc_credit_node_t *node = peer->head;
        peer->head = node->next;
        if (!peer->head) peer->tail = NULL;
        peer->backlog_len--;
        node->flags = take_locked(peer);
        node->next = NULL;
        *link = node;
        link = &node->next;
        n++;
    }
    if (n) total_waiting_add(peer->total, -n);
    return first;
}

unsigned gasnetc_credit_acquire(gasnetc_credit_peer_t *peer, gasnetc_credit_node_t *node)
{
    unsigned flags;
    PEER_LOCK(peer);
    if (!peer->head && peer->avail > 0 && total_take(peer->total)) {
        flags = take_locked(peer);
    } else {
        node->next = NULL;
        node->flags = GASNETC_CREDIT_QUEUED;
        if (peer->tail)
            peer->tail->next = node;
        else
            peer->head = node;
        peer->tail = node;
        peer->backlog_len++;
        peer->stat_queued++;
        total_waiting_add(peer->total, 1);
        flags = GASNETC_CREDIT_QUEUED;
    }
    PEER_UNLOCK(peer);
    return flags;
}

unsigned gasnetc_credit_try_acquire(gasnetc_credit_peer_t *peer)
{
    unsigned flags = 0;
    PEER_LOCK(peer);
    if (!peer->head && peer->avail > 0 && total_take(peer->total)) flags = take_locked(peer);
    PEER_UNLOCK(peer);
    return flags;
}

gasnetc_credit_node_t *gasnetc_credit_release(gasnetc_credit_peer_t *peer, unsigned flags)
{
    assert(flags & GASNETC_CREDIT_GRANTED);
    PEER_LOCK(peer);
    assert(peer->avail < peer->pp);
    peer->avail++;
    /* The Reply buffer the grant reused is unclaimed again; one it asked to
     * post was not posted (the caller releases before posting). */
    if (!(flags & GASNETC_CREDIT_POST_RBUF)) peer->rbuf_surplus++;
    peer->stat_granted--;
    total_give(peer->total, 1);
    gasnetc_credit_node_t *chain = drain_locked(peer);
    PEER_UNLOCK(peer);
    return chain;
}

gasnetc_credit_node_t *gasnetc_credit_drain(gasnetc_credit_peer_t *peer)
{
    PEER_LOCK(peer);
    gasnetc_credit_node_t *chain = peer->head ? drain_locked(peer) : NULL;
    PEER_UNLOCK(peer);
    return chain;
}

/* ---- returning credits ------------------------------------------------------------- */

unsigned gasnetc_credit_piggyback(gasnetc_credit_peer_t *peer, unsigned max)
{
    PEER_LOCK(peer);
    unsigned n = (unsigned)peer->bank;
    if (n > max) n = max;
    peer->bank -= (int)n;
    peer->stat_piggybacked += n;
    PEER_UNLOCK(peer);
    return n;
}

gasnetc_credit_node_t *gasnetc_credit_receive(gasnetc_credit_peer_t *peer, int is_reply,
                                              unsigned piggyback)
{
    int n = (int)piggyback + (is_reply ? 1 : 0);
    if (n == 0) {
        /* A Request carrying no credits: nothing changes.  Skip the lock. */
        return NULL;
    }
    PEER_LOCK(peer);
    /* A peer can only return credits we lent it. */
    assert(peer->avail + n <= peer->pp);
    peer->avail += n;
    /* Piggybacked credits come without consuming the Reply buffer we
     * posted for their Requests: those buffers serve later Requests. */
    peer->rbuf_surplus += (int)piggyback;
    total_give(peer->total, n);
    gasnetc_credit_node_t *chain = peer->head ? drain_locked(peer) : NULL;
    PEER_UNLOCK(peer);
    return chain;
}

int gasnetc_credit_unanswered(gasnetc_credit_peer_t *peer, unsigned *piggyback)
{
    int hidden;
    PEER_LOCK(peer);
    if (peer->bank + 1 > peer->slack) {
        /* The bank would pass the slack: answer with a hidden Reply that
         * returns this Request's credit plus everything banked. */
        *piggyback = (unsigned)peer->bank;
        peer->stat_piggybacked += (unsigned)peer->bank;
        peer->bank = 0;
        peer->stat_hidden++;
        hidden = 1;
    } else {
        peer->bank++;
        hidden = 0;
    }
    PEER_UNLOCK(peer);
    return hidden;
}
