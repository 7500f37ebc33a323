/* contrib/launcher/hub_coll.c: the bootstrap collectives as the hub sees
 * them.  Every rank sends one request; when all N are in, the hub sends
 * each rank its result and forgets the collective.  Requests must agree
 * (same operation, same block length, same broadcast root); otherwise the
 * ranks called different collectives and the job is ended with a message
 * naming both.  Payload layouts: bootstrap/README.
 */
#include <stdlib.h>
#include <string.h>

#include "contrib/launcher/launcher.h"

static const char *op_name(uint32_t op)
{
    switch (op) {
    case GASNETI_BSP_BARRIER: return "barrier";
    case GASNETI_BSP_EXCHANGE: return "exchange";
    case GASNETI_BSP_BCAST: return "broadcast";
    case GASNETI_BSP_ALLTOALL: return "alltoall";
    default: return "unknown";
    }
}

void gasnetrun_coll_reset(gasnetrun_job_t *job)
{
    for (uint32_t r = 0; r < job->nranks; r++) {
        free(job->ranks[r].contrib);
        job->ranks[r].contrib = NULL;
        job->ranks[r].contrib_len = 0;
        job->ranks[r].arrived = 0;
    }
    memset(&job->coll, 0, sizeof(job->coll));
}

/* The per-rank block length a request declares (and validates its size). */
static int request_block(const gasnetrun_job_t *job, uint32_t r, uint32_t op,
                         const unsigned char *payload, uint32_t len, uint32_t *block,
                         uint32_t *root)
{
    *root = 0;
    switch (op) {
    case GASNETI_BSP_BARRIER:
        *block = 0;
        return len == 0 ? 0 : -1;
    case GASNETI_BSP_EXCHANGE:
        *block = len;
        return (uint64_t)len * job->nranks <= GASNETI_BSP_MAX_PAYLOAD ? 0 : -1;
    case GASNETI_BSP_BCAST:
        if (len < 8) return -1;
        *root = gasneti_bsp_get32(payload);
        *block = gasneti_bsp_get32(payload + 4);
        if (*root >= job->nranks) return -1;
        return len == 8 + (r == *root ? *block : 0) ? 0 : -1;
    case GASNETI_BSP_ALLTOALL:
        if (len % job->nranks) return -1;
        *block = len / job->nranks;
        return 0;
    default: return -1;
    }
}

static void complete(gasnetrun_job_t *job)
{
    uint32_t n = job->nranks, op = job->coll.op, blk = job->coll.len;
    uint32_t rtype = op | GASNETI_BSP_RESULT;
    if (op == GASNETI_BSP_ALLTOALL) {
        for (uint32_t d = 0; d < n; d++) {
            gasnetrun_buf_t *b = gasnetrun_buf_new((size_t)n * blk);
            for (uint32_t s = 0; s < n && blk; s++)
                memcpy(b->data + (size_t)s * blk, job->ranks[s].contrib + (size_t)d * blk, blk);
            gasnetrun_hub_queue(job, d, rtype, b);
            gasnetrun_buf_put(b);
        }
    } else {
        gasnetrun_buf_t *b = NULL;
        if (op == GASNETI_BSP_EXCHANGE) {
            b = gasnetrun_buf_new((size_t)n * blk);
            for (uint32_t s = 0; s < n && blk; s++) /* no contributions at all when blk is 0 */
                memcpy(b->data + (size_t)s * blk, job->ranks[s].contrib, blk);
        } else if (op == GASNETI_BSP_BCAST) {
            b = gasnetrun_buf_new(blk);
            memcpy(b->data, job->ranks[job->coll.root].contrib + 8, blk);
        }
        gasnetrun_hub_queue_all(job, rtype, b);
        gasnetrun_buf_put(b);
    }
    gasnetrun_verbose(job->opts, "bootstrap %s complete (%u bytes per rank)", op_name(op),
                      (unsigned)blk);
    gasnetrun_coll_reset(job);
}

int gasnetrun_coll_request(gasnetrun_job_t *job, uint32_t r, uint32_t type,
                           unsigned char *payload, uint32_t len)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    uint32_t block, root;
    if (request_block(job, r, type, payload, len, &block, &root) != 0) {
        free(payload);
        gasnetrun_hub_fail(job, 1, "rank %u sent a malformed bootstrap %s request (%u bytes)",
                           (unsigned)r, op_name(type), (unsigned)len);
        return -1;
    }
    if (rk->arrived) {
        free(payload);
        gasnetrun_hub_fail(job, 1, "rank %u started a bootstrap %s before the %s it is in "
                           "finished", (unsigned)r, op_name(type), op_name(job->coll.op));
        return -1;
    }
    if (job->coll.arrived == 0) {
        job->coll.op = type;
        job->coll.first = r;
        job->coll.len = block;
        job->coll.root = root;
    } else if (type != job->coll.op || block != job->coll.len || root != job->coll.root) {
        uint32_t f = job->coll.first;
        free(payload);
        if (type != job->coll.op)
            gasnetrun_hub_fail(job, 1, "bootstrap collective mismatch: rank %u called %s "
                               "while rank %u called %s", (unsigned)f, op_name(job->coll.op),
                               (unsigned)r, op_name(type));
        else
            gasnetrun_hub_fail(job, 1, "bootstrap %s mismatch: rank %u passed %u bytes "
                               "(root %u), rank %u passed %u bytes (root %u)", op_name(type),
                               (unsigned)f, (unsigned)job->coll.len, (unsigned)job->coll.root,
                               (unsigned)r, (unsigned)block, (unsigned)root);
        return -1;
    }
    rk->arrived = 1;
    rk->contrib = payload;
    rk->contrib_len = len;
    if (++job->coll.arrived == job->nranks) complete(job);
    return 0;
}
