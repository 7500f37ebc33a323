#!/bin/bash
# rbuf-bench.sh: AM Medium round trip with small receive buffers (4 KiB:
# Mediums above ~4,000 bytes by rendezvous READ) against full-size buffers
# (GASNET_RBUF_SIZE=0), alternating in one guest boot, PSHM off, 2
# processes; tests/perf/perf-am am_medium_rtt at 4 KiB and 64,000 bytes.
# Run from the build directory, in the guest:
#   tests/softroce/softroce-run -- SRCDIR/tests/softroce/rbuf-bench.sh
set -u
for round in ${RBUF_BENCH_ROUNDS:-1 2 3}; do
    for size in 0 4K; do
        echo "=== round $round GASNET_RBUF_SIZE=$size"
        env GASNET_SUPERNODE_MAXSIZE=1 GASNET_RBUF_SIZE=$size timeout 300 \
            ./gasnetrun_ibv -n 2 tests/perf/perf-am --sizes 2K,4K,64000 --tests am_medium_rtt --iters 200 --reps 5 2>&1 |
            grep -E "medium|rtt|FAIL|ERROR|usage"
        echo "=== exit ${PIPESTATUS[0]}"
    done
done
