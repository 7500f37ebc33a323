/* core/am_npam.c: negotiated-payload Active Messages (NPAM): Prepare,
 * Commit (and _v2), Cancel, SrcDescAddr/Size.
 *
 * A thread has at most one prepared Request and one prepared Reply at a time
 * (between Prepare and Commit it makes no other communication call, so no
 * handler can run on it; a Reply is prepared inside a Request handler while
 * a Request may be prepared outside it).  Each lives in a per-thread
 * descriptor with its own buffer, allocated on first use and kept, so the
 * steady state allocates nothing.
 *
 * Sizes: a client buffer gets min(most, max payload) bytes (least with
 * GEX_FLAG_AM_PREPARE_LEAST_CLIENT); a GASNet buffer gets min(most, its
 * capacity), at least least_payload (least with
 * GEX_FLAG_AM_PREPARE_LEAST_ALLOC).  The capacity is the Medium maximum;
 * a Long asking for more grows the buffer.
 *
 * Commit builds the same header as the fixed-payload calls and sends it
 * through core/am_fpam.c's paths, so routing (PSHM / verbs), credits, IMMEDIATE
 * and local completion are those of the fixed-payload calls, and so is the
 * endpoint addressed: the one the Request's team names (TM-pairs), or for a
 * Reply the endpoint that sent the Request.  Both
 * transports finish with the payload before returning, so lc_opt is
 * complete at Commit.  Prepare never refuses (IMMEDIATE is a permission);
 * Commit_v2 with GEX_FLAG_IMMEDIATE may return non-zero, leaving the
 * descriptor prepared for another Commit or a Cancel.
 */
#include "core/gasnet_core_private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct gasneti_srcdesc_s {
    int kind;            /* GASNETC_NPAM_* */
    int active;          /* prepared, not yet committed or cancelled */
    gex_Rank_t dest;     /* job rank */
    gex_Token_t token;   /* Replies */
    gex_TM_t tm;         /* Requests: names both endpoints */
    void *addr;          /* payload buffer (client's or buf) */
    size_t size;         /* granted payload size */
    gex_Event_t *lc_opt;
    unsigned numargs;    /* as prepared (commits must match) */
    uint8_t *buf;        /* GASNet buffer, grown on demand */
    size_t bufsz;
};

static GASNETI_TLS struct gasneti_srcdesc_s *npam_sd[2]; /* [0] Requests, [1] Replies */

static const char *const prepare_name[4] = {"gex_AM_PrepareRequestMedium",
                                            "gex_AM_PrepareReplyMedium",
                                            "gex_AM_PrepareRequestLong", "gex_AM_PrepareReplyLong"};
static const char *const commit_name[4] = {"gex_AM_CommitRequestMedium", "gex_AM_CommitReplyMedium",
                                           "gex_AM_CommitRequestLong", "gex_AM_CommitReplyLong"};
static const char *const kind_name[4] = {"RequestMedium", "ReplyMedium", "RequestLong",
                                         "ReplyLong"};
#define IS_REPLY(kind) ((kind) & 1)
#define IS_LONG(kind) ((kind) >= GASNETC_NPAM_REQ_LONG)

static struct gasneti_srcdesc_s *sd_for(int kind)
{
    struct gasneti_srcdesc_s **p = &npam_sd[IS_REPLY(kind)];
    if (!*p) {
        *p = calloc(1, sizeof(**p));
        if (!*p) gasneti_fatalerror("gex_AM_Prepare%s: out of memory", kind_name[kind]);
    }
    if ((*p)->active)
        gasneti_fatalerror("gex_AM_Prepare%s: this thread already holds a prepared %s that was "
                           "neither committed nor cancelled", kind_name[kind],
                           kind_name[(*p)->kind]);
    return *p;
}

static gex_AM_SrcDesc_t prepare(int kind, gex_TM_t tm, gex_Rank_t dest, gex_Token_t token,
                                const void *client_buf, size_t least, size_t most,
                                gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs)
{
    const char *fn = prepare_name[kind];
    size_t max = IS_LONG(kind) ? GASNETC_MAX_LONG_LUB : GASNETC_MAX_MEDIUM;
    if (numargs > GASNETC_AM_MAX_ARGS)
        gasneti_fatalerror("%s: numargs=%u exceeds gex_AM_MaxArgs() (%u)", fn, numargs,
                           (unsigned)GASNETC_AM_MAX_ARGS);
    if (least > most)
        gasneti_fatalerror("%s: least_payload=%zu exceeds most_payload=%zu", fn, least, most);
    if (least > max)
        gasneti_fatalerror("%s: least_payload=%zu exceeds the maximum payload (%zu)", fn, least,
                           max);
    if (lc_opt == GEX_EVENT_DEFER || (IS_REPLY(kind) && lc_opt == GEX_EVENT_GROUP))
        gasneti_fatalerror("%s: invalid lc_opt (Requests: NOW, GROUP or an event pointer; "
                           "Replies: NOW or an event pointer)", fn);
    struct gasneti_srcdesc_s *sd = sd_for(kind);
    if (most > max) most = max;
    size_t size;
    if (client_buf) {
        size = (flags & GEX_FLAG_AM_PREPARE_LEAST_CLIENT) ? least : most;
        sd->addr = (void *)client_buf;
    } else {
        size_t cap = GASNETC_MAX_MEDIUM;
        size = (flags & GEX_FLAG_AM_PREPARE_LEAST_ALLOC) ? least : (most < cap ? most : cap);
        if (size < least) size = least;
        if (size > sd->bufsz || !sd->buf) {
            size_t want = size > cap ? size : cap;
            uint8_t *b = realloc(sd->buf, want ? want : 1);
            if (!b) gasneti_fatalerror("%s: out of memory for a %zu-byte payload buffer", fn, want);
            sd->buf = b;
            sd->bufsz = want;
        }
        sd->addr = sd->buf;
    }
    sd->kind = kind;
    sd->dest = dest;
    sd->token = token;
    sd->tm = tm;
    sd->size = size;
    sd->lc_opt = lc_opt;
    sd->numargs = numargs;
    sd->active = 1;
    return sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                             size_t least_payload, size_t most_payload,
                                             gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs)
{
    gex_Rank_t dest = gasnetc_am_req_target(tm, rank, "gex_AM_PrepareRequestMedium");
    return prepare(GASNETC_NPAM_REQ_MEDIUM, tm, dest, NULL, client_buf, least_payload, most_payload,
                   lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned int numargs)
{
    (void)dest_addr; /* a hint; the Commit names the destination */
    gex_Rank_t dest = gasnetc_am_req_target(tm, rank, "gex_AM_PrepareRequestLong");
    return prepare(GASNETC_NPAM_REQ_LONG, tm, dest, NULL, client_buf, least_payload, most_payload,
                   lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs)
{
    gex_Rank_t dest = gasnetc_am_reply_target(token, "gex_AM_PrepareReplyMedium");
    return prepare(GASNETC_NPAM_REP_MEDIUM, NULL, dest, token, client_buf, least_payload,
                   most_payload, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                         unsigned int numargs)
{
    (void)dest_addr;
    gex_Rank_t dest = gasnetc_am_reply_target(token, "gex_AM_PrepareReplyLong");
    return prepare(GASNETC_NPAM_REP_LONG, NULL, dest, token, client_buf, least_payload, most_payload,
                   lc_opt, flags, numargs);
}

static struct gasneti_srcdesc_s *live(gex_AM_SrcDesc_t sd, const char *fn)
{
    if (sd == GEX_AM_SRCDESC_NO_OP || !sd->active)
        gasneti_fatalerror("%s: the source descriptor %p is not prepared (GEX_AM_SRCDESC_NO_OP, "
                           "or already committed or cancelled)", fn, (void *)sd);
    return sd;
}

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) { return live(sd, "gex_AM_SrcDescAddr")->addr; }

size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) { return live(sd, "gex_AM_SrcDescSize")->size; }

int gasnetc_AM_Commit(int kind, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                      void *dest_addr, gex_Flags_t commit_flags, unsigned int numargs, ...)
{
    const char *fn = commit_name[kind & 3];
    struct gasneti_srcdesc_s *d = live(sd, fn);
    if (d->kind != kind)
        gasneti_fatalerror("%s: the descriptor was prepared by gex_AM_Prepare%s", fn,
                           kind_name[d->kind]);
    if (numargs != d->numargs)
        gasneti_fatalerror("%s: %u arguments, but gex_AM_Prepare%s was given numargs=%u", fn,
                           numargs, kind_name[kind], d->numargs);
    if (nbytes > d->size)
        gasneti_fatalerror("%s: nbytes=%zu exceeds gex_AM_SrcDescSize (%zu)", fn, nbytes, d->size);
    if (commit_flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE)
        gasneti_fatalerror("%s: commit_flags 0x%x (only GEX_FLAG_IMMEDIATE is allowed)", fn,
                           (unsigned)commit_flags);
    gex_AM_Arg_t args[GASNETC_AM_MAX_ARGS];
    va_list ap;
    va_start(ap, numargs);
    for (unsigned i = 0; i < numargs; i++) args[i] = (gex_AM_Arg_t)va_arg(ap, int);
    va_end(ap);
    gasnetc_am_hdr_t h;
    gasnetc_am_fill_hdr(&h, IS_LONG(kind) ? GASNETC_AM_LONG : GASNETC_AM_MEDIUM, !IS_REPLY(kind),
                        handler, nbytes, numargs, args);
    if (IS_REPLY(kind)) gasnetc_am_reply_eps(&h, d->token); /* back to the Request's endpoint */
    else gasnetc_am_route_eps(&h, d->tm, fn);              /* the endpoint tm names */
    void *net = IS_REPLY(kind) ? d->token->net : NULL;
    int rc = IS_LONG(kind)
                 ? gasnetc_am_send_long(d->dest, net, &h, d->addr, nbytes, dest_addr, commit_flags, fn)
                 : gasnetc_am_send(d->dest, net, &h, d->addr, nbytes, commit_flags, fn);
    if (rc) return rc;
    if (d->addr != d->buf) gasnetc_am_set_lc_done(d->lc_opt);
    d->active = 0;
    return 0;
}

static int cancel(int kind, gex_AM_SrcDesc_t sd, const char *fn)
{
    struct gasneti_srcdesc_s *d = live(sd, fn);
    if (d->kind != kind)
        gasneti_fatalerror("%s: the descriptor was prepared by gex_AM_Prepare%s", fn,
                           kind_name[d->kind]);
    if (IS_REPLY(kind)) d->token->replied = 0; /* the handler may still reply */
    d->active = 0;
    return GASNET_OK;
}

#define GASNETC_NPAM_CANCEL(name, kind)                                  \
    int gex_AM_Cancel##name(gex_AM_SrcDesc_t sd, gex_Flags_t flags)      \
    {                                                                    \
        (void)flags;                                                     \
        return cancel(kind, sd, "gex_AM_Cancel" #name);                  \
    }
GASNETC_NPAM_CANCEL(RequestMedium, GASNETC_NPAM_REQ_MEDIUM)
GASNETC_NPAM_CANCEL(ReplyMedium, GASNETC_NPAM_REP_MEDIUM)
GASNETC_NPAM_CANCEL(RequestLong, GASNETC_NPAM_REQ_LONG)
GASNETC_NPAM_CANCEL(ReplyLong, GASNETC_NPAM_REP_LONG)
