/* tests/install/legion-wrapper.c: the part of a runtime that Legion's Realm
 * builds as a shared library (its GASNet-EX network module): compiled with
 * -fPIC, linked with -shared against the installed libgasnet-ibv-par.a and
 * loaded with dlopen by tests/install/legion-host.c (check-legion-build.sh).
 *
 * legion_wrapper_run(): every rank sends an AM Medium to its right
 * neighbour, two threads put into the right neighbour's segment at once,
 * and after a barrier each rank checks what its left neighbour put.  Rank 0
 * prints "legion-wrapper: PASS PAR on N processes" when every check held
 * (agreed with a reduction), and the job exits through gasnet_exit. */
#include <gasnetex.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORDS 256
#define THREADS 2

static gex_TM_t tm;
static gex_Rank_t me, nranks;
static gasnett_atomic_t arrived = gasnett_atomic_init(0);
static void *right_seg;
static int failures;

static void on_request(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t from)
{
    const uint32_t *w = buf;
    int ok = nbytes == WORDS * sizeof(uint32_t);
    for (size_t i = 0; ok && i < WORDS; i++) ok = w[i] == (uint32_t)from * 1000u + (uint32_t)i;
    if (!ok) failures++;
    (void)token;
    gasnett_atomic_increment(&arrived, 0);
}

static void *putter(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg, words[WORDS];
    gex_Rank_t right = (me + 1) % nranks;
    for (size_t i = 0; i < WORDS; i++) words[i] = 100u * (uint32_t)me + t;
    gex_Event_Wait(gex_RMA_PutNB(tm, right, (char *)right_seg + t * sizeof(words), words,
                                 sizeof(words), GEX_EVENT_DEFER, 0));
    return NULL;
}

int legion_wrapper_run(int *argc, char ***argv);
int legion_wrapper_run(int *argc, char ***argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    uint32_t words[WORDS];
    pthread_t th[THREADS];
    if (gex_Client_Init(&client, &ep, &tm, "legion-wrapper", argc, argv, 0) != GASNET_OK) return 1;
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    if (gex_Segment_Attach(&seg, tm, 1 << 16) != GASNET_OK) return 1;
    gex_AM_Entry_t entry = {GEX_AM_INDEX_BASE, (gex_AM_Fn_t)on_request,
                            GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "legion-req"};
    if (gex_EP_RegisterHandlers(ep, &entry, 1) != GASNET_OK) return 1;
    gex_Coll_BarrierBlocking(tm, 0);

    gex_Rank_t right = (me + 1) % nranks, left = (me + nranks - 1) % nranks;
    for (size_t i = 0; i < WORDS; i++) words[i] = (uint32_t)me * 1000u + (uint32_t)i;
    gex_AM_RequestMedium1(tm, right, GEX_AM_INDEX_BASE, words, sizeof(words), GEX_EVENT_NOW, 0,
                          (gex_AM_Arg_t)me);
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&arrived, 0) == 1);

    if (gex_Segment_QueryBound(tm, right, &right_seg, NULL, NULL) != GASNET_OK) failures++;
    for (uintptr_t t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, putter, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    gex_Coll_BarrierBlocking(tm, 0);
    const uint32_t *got = gex_Segment_QueryAddr(seg);
    for (uint32_t t = 0; t < THREADS; t++)
        for (size_t i = 0; i < WORDS; i++)
            if (got[t * WORDS + i] != 100u * (uint32_t)left + t) {
                failures++;
                break;
            }

    int64_t mine = failures, total = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &total, &mine, GEX_DT_I64, sizeof(int64_t), 1,
                                          GEX_OP_ADD, NULL, NULL, 0));
    if (me == 0) {
        if (total == 0)
            printf("legion-wrapper: PASS %s on %u processes\n", GASNETI_THREAD_MODEL_STR,
                   (unsigned)nranks);
        else
            printf("legion-wrapper: FAIL (%lld failed checks)\n", (long long)total);
        fflush(stdout);
    }
    gex_Coll_BarrierBlocking(tm, 0);
    gasnet_exit(total == 0 ? 0 : 1);
    return 1;
}
