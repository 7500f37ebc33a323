// tests/install/runtime-client.cc: a C++ client built the way PGAS runtimes
// build theirs (UPC++ compiles with $(GASNET_CXX) $(GASNET_CXXCPPFLAGS)
// $(GASNET_CXXFLAGS), archives its objects with a tools-lite unit,
// runtime-lite.cc, and links with $(GASNET_CXX) $(GASNET_LDFLAGS) ...
// $(GASNET_LIBS)); used by check-runtime-build.sh for each thread mode.
//
// Every rank: an AM Medium round trip to its right neighbour carrying a
// std::vector, a put into the right neighbour's segment checked by the
// neighbour after a barrier, and (PAR builds) the same put issued from two
// std::threads at once.  Rank 0 prints "runtime-client: PASS <mode> on N
// processes" when every rank's checks held (agreed with a reduction).
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

gex_TM_t g_tm;
gex_Rank_t me, nranks;
std::atomic<int> replies{0};
int failures = 0;
constexpr gex_AM_Index_t kReq = GEX_AM_INDEX_BASE, kRep = GEX_AM_INDEX_BASE + 1;
constexpr size_t kWords = 512;

void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "runtime-client rank %u: %s\n", unsigned(me), what);
        failures++;
    }
}

void on_request(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    const uint32_t *w = static_cast<const uint32_t *>(buf);
    bool ok = n == kWords * sizeof(uint32_t);
    for (size_t i = 0; ok && i < kWords; i++) ok = w[i] == uint32_t(seed) + i;
    gex_AM_ReplyShort1(t, kRep, 0, ok ? 1 : 0);
}

void on_reply(gex_Token_t, gex_AM_Arg_t ok)
{
    if (!ok) failures++;
    replies++;
}

}  // namespace

int runtime_lite_watermark();  // runtime-lite.cc

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &g_tm, "runtime-client", &argc, &argv, 0) != GASNET_OK)
        return 1;
    me = gex_TM_QueryRank(g_tm);
    nranks = gex_TM_QuerySize(g_tm);
    if (gex_Segment_Attach(&seg, g_tm, 1 << 20) != GASNET_OK) return 1;
    gex_AM_Entry_t table[] = {
        {kReq, reinterpret_cast<gex_AM_Fn_t>(on_request), GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM,
         1, nullptr, "req"},
        {kRep, reinterpret_cast<gex_AM_Fn_t>(on_reply), GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1,
         nullptr, "rep"}};
    if (gex_EP_RegisterHandlers(ep, table, 2) != GASNET_OK) return 1;
    gex_Event_Wait(gex_Coll_BarrierNB(g_tm, 0));

    gex_Rank_t right = (me + 1) % nranks, left = (me + nranks - 1) % nranks;
    std::vector<uint32_t> words(kWords);
    for (size_t i = 0; i < kWords; i++) words[i] = 1000 * me + uint32_t(i);
    gex_AM_RequestMedium1(g_tm, right, kReq, words.data(), words.size() * sizeof(uint32_t),
                          GEX_EVENT_NOW, 0, gex_AM_Arg_t(1000 * me));
    GASNET_BLOCKUNTIL(replies.load() == 1);

    void *rseg = nullptr;
    check(gex_Segment_QueryBound(g_tm, right, &rseg, nullptr, nullptr) == GASNET_OK, "QueryBound");
    int nthreads = 1;
#if defined(GASNET_PAR)
    nthreads = 2;  // PAR: several threads inject at once
#endif
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; t++)
        threads.emplace_back([&, t] {
            std::vector<uint32_t> mine(kWords, 7u * me + uint32_t(t));
            gex_Event_Wait(gex_RMA_PutNB(g_tm, right,
                                         static_cast<char *>(rseg) + t * kWords * sizeof(uint32_t),
                                         mine.data(), kWords * sizeof(uint32_t), GEX_EVENT_DEFER, 0));
        });
    for (auto &th : threads) th.join();
    gex_Coll_BarrierBlocking(g_tm, 0);
    const uint32_t *got = static_cast<const uint32_t *>(gex_Segment_QueryAddr(seg));
    for (int t = 0; t < nthreads; t++)
        for (size_t i = 0; i < kWords; i++)
            if (got[t * kWords + i] != 7u * left + uint32_t(t)) {
                check(false, "put data from the left neighbour is wrong");
                break;
            }

    check(runtime_lite_watermark() > 0, "the tools-lite unit's ident is empty");
    int64_t mine_failures = failures, total = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(g_tm, &total, &mine_failures, GEX_DT_I64, sizeof(int64_t),
                                          1, GEX_OP_ADD, nullptr, nullptr, 0));
    if (me == 0) {
        if (total == 0)
            std::printf("runtime-client: PASS %s on %u processes (ticks %s)\n",
                        GASNETI_THREAD_MODEL_STR, unsigned(nranks),
                        gasnett_ticks_to_ns(gasnett_ticks_now()) > 0 ? "ok" : "zero");
        else
            std::printf("runtime-client: FAIL (%lld failed checks)\n", (long long)total);
        std::fflush(stdout);
    }
    gex_Coll_BarrierBlocking(g_tm, 0);
    gasnet_exit(total == 0 ? 0 : 1);
    return 0;
}
