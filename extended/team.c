/* extended/team.c: team creation and destruction (gex_TM_Split,
 * gex_TM_Create, gex_TM_Destroy, gex_TM_Pair) and the registry that maps
 * team ids in messages to this process's live teams.
 *
 * Creation is collective over the parent: one allgather over the parent
 * (coll.c) gives every caller the others' arguments and their next free
 * team id; the members of a new team name it by the largest of their next
 * ids, which none of them uses (ids grow monotonically per process), so an
 * id is unique among the live teams of every member.  The new team is
 * registered, then a barrier over the parent guarantees that no member
 * sends a message for the new team before every member can file it.
 * Rationale and limits: extended/README, "Teams".
 */
#include "extended/team.h"

#include <stdlib.h>
#include <string.h>

/* What we recommend for scratch space: the spec wants a non-zero size;
 * our collectives do not need it (see README), one page keeps it cheap. */
#define GASNETE_TEAM_SCRATCH ((size_t)GASNET_PAGESIZE)

static gasneti_mutex_t reg_lock = GASNETI_MUTEX_INITIALIZER;
static struct gasnete_team_s *reg_head;
static uint32_t next_team_id = 1; /* 0 is the primordial team */
static struct gasnete_team_s primordial;

static struct gasneti_tm_s pair_tms[GASNET_MAXEPS][GASNET_MAXEPS]; /* [local][remote] */

/* ---- registry -------------------------------------------------------------------- */

static void reg_add(struct gasnete_team_s *t)
{
    gasneti_mutex_lock(&reg_lock);
    t->next = reg_head;
    reg_head = t;
    gasneti_mutex_unlock(&reg_lock);
}

/* Unlinks t, then waits until no progress pass uses it. */
static void reg_remove(struct gasnete_team_s *t)
{
    gasneti_mutex_lock(&reg_lock);
    for (struct gasnete_team_s **p = &reg_head; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    while (__atomic_load_n(&t->refs, __ATOMIC_ACQUIRE)) {
        gasneti_mutex_unlock(&reg_lock);
        gasnetc_poll();
        gasneti_mutex_lock(&reg_lock);
    }
    gasneti_mutex_unlock(&reg_lock);
}

int gasnete_team_with_id(uint32_t id, void (*fn)(struct gasnete_team_s *, void *), void *arg)
{
    int rc = -1;
    gasneti_mutex_lock(&reg_lock);
    for (struct gasnete_team_s *t = reg_head; t; t = t->next)
        if (t->tm->id == id) {
            fn(t, arg);
            rc = 0;
            break;
        }
    gasneti_mutex_unlock(&reg_lock);
    return rc;
}

void gasnete_team_each_busy(void (*fn)(struct gasnete_team_s *))
{
    struct gasnete_team_s *stack[32], **busy = stack;
    size_t n = 0, cap = 32;
    gasneti_mutex_lock(&reg_lock);
    for (struct gasnete_team_s *t = reg_head; t; t = t->next) {
        if (!gasnete_bar_outstanding(&t->bar)) continue;
        if (n == cap) { /* many busy teams: rare, so allocate */
            struct gasnete_team_s **more = malloc(sizeof(*more) * cap * 2);
            if (!more) break; /* the rest waits for the next pass */
            memcpy(more, busy, sizeof(*more) * n);
            if (busy != stack) free(busy);
            busy = more;
            cap *= 2;
        }
        __atomic_add_fetch(&t->refs, 1, __ATOMIC_ACQ_REL);
        busy[n++] = t;
    }
    gasneti_mutex_unlock(&reg_lock);
    for (size_t i = 0; i < n; i++) {
        fn(busy[i]);
        __atomic_sub_fetch(&busy[i]->refs, 1, __ATOMIC_RELEASE);
    }
    if (busy != stack) free(busy);
}

void gasnete_team_init(void)
{
    primordial.tm = &gasneti_the_tm;
    gasnete_bar_setup(&primordial.bar, gasneti_the_tm.rank, gasneti_the_tm.size);
    gasneti_the_tm.id = 0;
    gasneti_the_tm.coll = &primordial;
    reg_add(&primordial);
}

/* ---- queries used by the other files ---------------------------------------------------- */

gex_Rank_t gasnete_team_rank_of(gex_TM_t tm, gex_Rank_t jobrank)
{
    if (!tm->by_jobrank) return jobrank < tm->size ? jobrank : GEX_RANK_INVALID;
    size_t lo = 0, hi = tm->size;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tm->by_jobrank[mid][0] < jobrank) lo = mid + 1;
        else hi = mid;
    }
    return lo < tm->size && tm->by_jobrank[lo][0] == jobrank ? tm->by_jobrank[lo][1]
                                                            : GEX_RANK_INVALID;
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank)
{
    if (tm == GEX_TM_INVALID)
        gasneti_fatalerror("gex_TM_TranslateJobrankToRank: tm is GEX_TM_INVALID");
    return gasnete_team_rank_of(tm, jobrank);
}

struct gasnete_team_s *gasnete_team_for_coll(gex_TM_t tm, const char *fn)
{
    if (tm == GEX_TM_INVALID) gasneti_fatalerror("%s: tm is GEX_TM_INVALID", fn);
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", fn);
    if (GASNETE_CHECKS && gasnetc_in_handler())
        gasneti_fatalerror("%s called from an AM handler (collectives are not allowed in "
                           "handler context)",
                           fn);
    if (!tm->coll)
        gasneti_fatalerror("%s: tm is a TM-pair (gex_TM_Pair), which allows no collective "
                           "calls; use a team from gex_Client_Init, gex_TM_Split or "
                           "gex_TM_Create",
                           fn);
    return tm->coll;
}

/* ---- creation ------------------------------------------------------------------------ */

typedef struct {
    int32_t color, key;
    uint32_t next_id;
    uint32_t member; /* 1 when the caller joins a new team */
} split_arg_t;

typedef struct {
    int32_t key;
    gex_Rank_t prank; /* rank in the parent */
} split_member_t;

static int member_cmp(const void *a, const void *b)
{
    const split_member_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->prank < y->prank ? -1 : x->prank > y->prank;
}

static int pair_cmp(const void *a, const void *b)
{
    const gex_Rank_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Builds and registers the team of the given jobranks (team order), of
 * which this process is one, named id. */
static gex_TM_t team_new(gex_TM_t parent, gex_Rank_t *jobranks, gex_Rank_t n, uint32_t id,
                         void *scratch_addr, size_t scratch_size, gex_Flags_t flags,
                         const char *fn)
{
    struct gasneti_tm_s *tm = calloc(1, sizeof(*tm));
    struct gasnete_team_s *t = calloc(1, sizeof(*t));
    gex_Rank_t(*pairs)[2] = malloc(sizeof(*pairs) * n);
    if (!tm || !t || !pairs) gasneti_fatalerror("%s: out of memory for a team of %u", fn, n);
    gex_Rank_t me = GEX_RANK_INVALID;
    for (gex_Rank_t i = 0; i < n; i++) {
        pairs[i][0] = jobranks[i];
        pairs[i][1] = i;
        if (jobranks[i] == gasneti_mynode) me = i;
    }
    qsort(pairs, n, sizeof(*pairs), pair_cmp);
    tm->ep = parent->ep;
    tm->rank = me;
    tm->size = n;
    tm->flags = flags;
    tm->jobranks = jobranks;
    tm->by_jobrank = (const gex_Rank_t(*)[2])pairs;
    tm->id = id;
    tm->coll = t;
    t->tm = tm;
    t->scratch_addr = scratch_addr;
    t->scratch_size = scratch_size;
    gasnete_bar_setup(&t->bar, me, n);
    gasneti_mutex_lock(&reg_lock);
    if (id >= next_team_id) next_team_id = id + 1;
    gasneti_mutex_unlock(&reg_lock);
    reg_add(t);
    return tm;
}

static uint32_t my_next_id(void)
{
    gasneti_mutex_lock(&reg_lock);
    uint32_t id = next_team_id;
    gasneti_mutex_unlock(&reg_lock);
    return id;
}

/* Scratch-size queries (both Split and Create); returns 1 if flags ask one. */
static int scratch_query(gex_Flags_t flags, const char *fn)
{
    static int warned;
    if (!(flags & (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN)))
        return 0;
    if ((flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) && !warned++ && gasneti_mynode == 0)
        gasneti_warning("%s: GEX_FLAG_TM_SCRATCH_SIZE_MIN is deprecated since specification "
                        "0.11; use GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED",
                        fn);
    return 1;
}

/* Where the scratch space granted for one of our team memberships lies
 * (GEX_FLAG_SCRATCH_SEG_OFFSET: an offset into the primordial segment, the
 * one bound to the member endpoint).  The spec wants it inside that
 * segment; we never touch it (README, "Teams"), so a range outside only
 * earns one warning. */
static void *scratch_place(gex_Addr_t a, size_t size, gex_Flags_t flags, const char *fn)
{
    static int warned;
    void *p = a;
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET)
        p = (char *)gasneti_seginfo[gasneti_mynode].addr + (uintptr_t)a;
    if (p && size && gasneti_attach_done && !gasnetc_in_segment(gasneti_mynode, p, size) &&
        !warned++)
        gasneti_warning("%s: scratch space [%p, +%zu) is not inside the caller's bound segment "
                        "(the specification requires it there)",
                        fn, p, size);
    return p;
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags)
{
    static const char fn[] = "gex_TM_Split";
    (void)gasnete_team_for_coll(parent_tm, fn);
    int joins = new_tm_p != NULL && color >= 0;
    if (scratch_query(flags, fn)) return joins ? GASNETE_TEAM_SCRATCH : 0;
    if (flags & (GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_SYMMETRIC_SCRATCH))
        gasneti_fatalerror("%s: GEX_FLAG_TM_GLOBAL_SCRATCH and GEX_FLAG_TM_SYMMETRIC_SCRATCH are "
                           "for gex_TM_Create; Split takes each caller's own scratch_addr",
                           fn);
    if ((flags & GEX_FLAG_TM_NO_SCRATCH) || !joins) {
        scratch_addr = NULL, scratch_size = 0;
    } else {
        if (!scratch_size)
            gasneti_fatalerror("%s: scratch_size is 0; pass the size from the "
                               "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED query, or "
                               "GEX_FLAG_TM_NO_SCRATCH",
                               fn);
        scratch_addr = scratch_place(scratch_addr, scratch_size, flags, fn);
    }
    gex_Rank_t n = parent_tm->size;
    split_arg_t mine = {color, key, my_next_id(), (uint32_t)joins};
    split_arg_t *all = malloc(sizeof(*all) * n);
    split_member_t *mem = malloc(sizeof(*mem) * n);
    if (!all || !mem) gasneti_fatalerror("%s: out of memory (parent team of %u)", fn, n);
    gasnete_coll_allgather(parent_tm, all, &mine, sizeof(mine));
    gex_TM_t tm = GEX_TM_INVALID;
    if (joins) {
        gex_Rank_t m = 0;
        uint32_t id = 0;
        for (gex_Rank_t r = 0; r < n; r++) {
            if (!all[r].member || all[r].color != color) continue;
            mem[m].key = all[r].key;
            mem[m++].prank = r;
            if (all[r].next_id > id) id = all[r].next_id;
        }
        qsort(mem, m, sizeof(*mem), member_cmp);
        gex_Rank_t *jr = malloc(sizeof(*jr) * m);
        if (!jr) gasneti_fatalerror("%s: out of memory for a team of %u", fn, m);
        for (gex_Rank_t i = 0; i < m; i++) jr[i] = gasnetc_tm_to_jobrank(parent_tm, mem[i].prank);
        tm = team_new(parent_tm, jr, m, id, scratch_addr, scratch_size, flags, fn);
    }
    free(all);
    free(mem);
    /* Every member has registered the new team before anyone uses it. */
    (void)gex_Coll_BarrierBlocking(parent_tm, 0);
    if (new_tm_p) *new_tm_p = tm;
    return 0;
}

/* The jobranks of Create's member list (team order); fatal on a bad entry.
 * *local: how many members are this process's endpoints, *me: the team
 * rank of (the first of) them. */
static gex_Rank_t *create_members(gex_TM_t parent, const gex_EP_Location_t *args, size_t numargs,
                                  gex_Flags_t flags, const char *fn, size_t *local,
                                  gex_Rank_t *me)
{
    gex_Rank_t *jr = malloc(sizeof(*jr) * numargs);
    if (!jr) gasneti_fatalerror("%s: out of memory for %zu members", fn, numargs);
    if (numargs >= GEX_RANK_INVALID)
        gasneti_fatalerror("%s: numargs %zu is too large", fn, numargs);
    *local = 0;
    *me = GEX_RANK_INVALID;
    for (size_t i = 0; i < numargs; i++) {
        gex_Rank_t r = args[i].gex_rank;
        if (args[i].gex_ep_index != 0)
            gasneti_fatalerror("%s: args[%zu].gex_ep_index is %u; only primordial endpoints "
                               "(index 0) can be team members, as in GASNet-EX (use "
                               "gex_TM_Pair to reach other endpoints)",
                               fn, i, (unsigned)args[i].gex_ep_index);
        if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
            if (r >= gasneti_nodes || gasnete_team_rank_of(parent, r) == GEX_RANK_INVALID)
                gasneti_fatalerror("%s: args[%zu].gex_rank is jobrank %u, which is not a member "
                                   "of the parent team",
                                   fn, i, (unsigned)r);
            jr[i] = r;
        } else {
            if (r >= parent->size)
                gasneti_fatalerror("%s: args[%zu].gex_rank %u is out of range (parent team "
                                   "size %u)",
                                   fn, i, (unsigned)r, (unsigned)parent->size);
            jr[i] = gasnetc_tm_to_jobrank(parent, r);
        }
        for (size_t k = 0; k < i; k++)
            if (jr[k] == jr[i])
                gasneti_fatalerror("%s: args[%zu] and args[%zu] name the same member", fn, k, i);
        if (jr[i] == gasneti_mynode) {
            if (!*local) *me = (gex_Rank_t)i;
            ++*local;
        }
    }
    return jr;
}

#define SCRATCH_MODES                                                                     \
    (GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_TM_GLOBAL_SCRATCH | \
     GEX_FLAG_TM_NO_SCRATCH)

/* Creates zero or more disjoint teams per call, at most one per caller
 * (spec): each caller names the members of the team it creates, callers of
 * the same team pass the same args[], and a caller need not be a member of
 * the team it names (num_new_tms 0 then).  One allgather of next ids over
 * the parent names every new team (largest next id among its members), a
 * barrier over the parent makes them usable on return. */
size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags)
{
    static const char fn[] = "gex_TM_Create";
    (void)gasnete_team_for_coll(parent_tm, fn);
    /* Queries pass new_tms NULL (UPC++ does): membership is num_new_tms. */
    if (scratch_query(flags, fn)) return num_new_tms && numargs ? GASNETE_TEAM_SCRATCH : 0;
    gex_Flags_t mode = flags & SCRATCH_MODES;
    if (mode & (mode - 1))
        gasneti_fatalerror("%s: flags 0x%x hold more than one of GEX_FLAG_TM_{SYMMETRIC,LOCAL,"
                           "GLOBAL,NO}_SCRATCH (they are mutually exclusive)",
                           fn, (unsigned)flags);
    if (!mode) mode = GEX_FLAG_TM_LOCAL_SCRATCH; /* no default in the spec: the common one */
    size_t local = 0;
    gex_Rank_t me = GEX_RANK_INVALID;
    gex_Rank_t *jr = numargs ? create_members(parent_tm, args, numargs, flags, fn, &local, &me)
                             : NULL;
    if (numargs && num_new_tms != local)
        gasneti_fatalerror("%s: num_new_tms is %zu but args[] names %zu endpoint(s) of this "
                           "process (they must be equal)",
                           fn, num_new_tms, local);
    if (local && !new_tms) gasneti_fatalerror("%s: new_tms is NULL but the caller is a member", fn);
    void *scratch = NULL;
    if (local && mode != GEX_FLAG_TM_NO_SCRATCH) {
        if (!scratch_addrs || !scratch_size)
            gasneti_fatalerror("%s: no scratch space (scratch_addrs %p, scratch_size %zu); pass "
                               "GEX_FLAG_TM_NO_SCRATCH to create a team without one",
                               fn, (void *)scratch_addrs, scratch_size);
        gex_Addr_t a = mode == GEX_FLAG_TM_GLOBAL_SCRATCH ? scratch_addrs[me] : scratch_addrs[0];
        scratch = scratch_place(a, scratch_size, flags, fn);
    } else {
        scratch_size = 0;
    }
    gex_Rank_t n = parent_tm->size;
    uint32_t mine = my_next_id();
    uint32_t *ids = malloc(sizeof(*ids) * n);
    if (!ids) gasneti_fatalerror("%s: out of memory (parent team of %u)", fn, n);
    gasnete_coll_allgather(parent_tm, ids, &mine, sizeof(mine));
    if (local) {
        uint32_t id = 0;
        for (size_t i = 0; i < numargs; i++) {
            uint32_t x = ids[gasnete_team_rank_of(parent_tm, jr[i])];
            if (x > id) id = x;
        }
        new_tms[0] = team_new(parent_tm, jr, (gex_Rank_t)numargs, id, scratch, scratch_size,
                              flags & ~(gex_Flags_t)(GEX_FLAG_RANK_IS_JOBRANK | SCRATCH_MODES |
                                                     GEX_FLAG_SCRATCH_SEG_OFFSET),
                              fn);
    } else {
        free(jr);
    }
    free(ids);
    /* Stronger than the per-team barrier LOCAL_SCRATCH asks for: nobody
     * sends for a new team before every member has registered it. */
    (void)gex_Coll_BarrierBlocking(parent_tm, 0);
    return 0;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    static const char fn[] = "gex_TM_Destroy";
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, fn);
    if (tm == &gasneti_the_tm)
        gasneti_fatalerror("%s: the primordial team (from gex_Client_Init) cannot be destroyed",
                           fn);
    /* Collective: without GLOBALLY_QUIESCED, members may still be finishing
     * collectives whose last messages are for us; the barrier drains them. */
    if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED)) (void)gex_Coll_BarrierBlocking(tm, 0);
    reg_remove(t);
    /* Non-zero exactly when *scratch_p is written (spec): the client asked
     * for the scratch space back and the team had one. */
    int written = scratch_p && t->scratch_addr != NULL;
    if (written) {
        scratch_p->gex_addr = t->scratch_addr;
        if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET)
            scratch_p->gex_addr = (void *)((uintptr_t)t->scratch_addr -
                                           (uintptr_t)gasneti_seginfo[gasneti_mynode].addr);
        scratch_p->gex_len = t->scratch_size;
    }
    free((void *)tm->jobranks);
    free((void *)tm->by_jobrank);
    free(t);
    free(tm);
    return written;
}

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index)
{
    if (local_ep == GEX_EP_INVALID) gasneti_fatalerror("gex_TM_Pair: local_ep is GEX_EP_INVALID");
    if (remote_ep_index >= GASNET_MAXEPS)
        gasneti_fatalerror("gex_TM_Pair: remote_ep_index %u is out of range (GASNET_MAXEPS %d)",
                           (unsigned)remote_ep_index, GASNET_MAXEPS);
    /* A pair names (local_ep, the endpoint at remote_ep_index of jobrank r):
     * ranks are jobranks.  Statically allocated, so calling it per
     * operation (common in clients) costs nothing and needs no destroy. */
    struct gasneti_tm_s *tm = &pair_tms[local_ep->index][remote_ep_index];
    if (!__atomic_load_n(&tm->is_pair, __ATOMIC_ACQUIRE)) {
        tm->ep = local_ep;
        tm->pair_ep_idx = remote_ep_index;
        tm->rank = gasneti_mynode;
        tm->size = gasneti_nodes;
        tm->id = UINT32_MAX;
        __atomic_store_n(&tm->is_pair, 1, __ATOMIC_RELEASE);
    }
    return tm;
}
