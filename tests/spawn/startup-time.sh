#!/usr/bin/env bash
# tests/spawn/startup-time.sh: launch-to-attach time of each spawner.
#
#   startup-time.sh [REPEATS] [SPAWNER...]     (from the build tree)
#
# For 2, 4 and 8 processes and each spawner (default: local ssh mpi pmi,
# those that are built), runs tests/spawn/attach-time REPEATS times (default
# 3) and prints the median time from starting gasnetrun_ibv to rank 0
# having passed gex_Client_Init, gex_Segment_Attach and a barrier (the
# program prints that moment), and the median time of the whole job.  ssh
# uses 2 processes per "host" (127.0.0.1 repeated) over a throw-away sshd
# (tests/spawn/sshd.sh); mpi and pmi use Open MPI's mpirun.  Not part of
# make check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${TEST_BUILDDIR:-$(pwd)}
launcher=${TEST_LAUNCHER:-$build/gasnetrun_ibv}
repeats=${1:-3}
shift || true
spawners=("$@")
[ ${#spawners[@]} -gt 0 ] || spawners=(local ssh mpi pmi)
. "$here/sshd.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/startup-time.XXXXXX")
trap 'sshd_stop; rm -rf "$work"' EXIT
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPIRUN_CMD="mpirun --oversubscribe -np %N %C" PMIRUN_CMD="mpirun --oversubscribe -np %N %C"
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

printf "%-6s %6s %16s %12s\n" spawner procs "launch->attach" "whole job"
for sp in "${spawners[@]}"; do
    if ! "$launcher" -h | grep -q "available: .*\\b$sp\\b"; then
        printf "%-6s %s\n" "$sp" "(not built)"
        continue
    fi
    prog=$build/tests/spawn/attach-time
    [ "$sp" = mpi ] && prog=$build/tests/spawn/attach-time-mpi
    if [ "$sp" = ssh ] && [ -z "${SSHD_PID:-}" ]; then
        sshd_start "$work/sshd" >/dev/null || { printf "%-6s %s\n" ssh "(no sshd)"; continue; }
        export GASNET_SSH_OPTIONS="$SSH_TEST_OPTIONS"
    fi
    for n in 2 4 8; do
        hosts=
        for _ in $(seq 1 $((n / 2))); do hosts="$hosts 127.0.0.1"; done
        : >"$work/attach"
        : >"$work/total"
        for _ in $(seq 1 "$repeats"); do
            t0=$(date +%s%N)
            line=$(GASNET_SSH_SERVERS="$hosts" timeout 120 "$launcher" -spawner="$sp" -n "$n" "$prog" 2>/dev/null |
                grep '^attach-done')
            t1=$(date +%s%N)
            set -- $line
            [ $# -ge 2 ] || continue
            echo $((($2 - t0) / 1000000)) >>"$work/attach"
            echo $(((t1 - t0) / 1000000)) >>"$work/total"
        done
        printf "%-6s %6d %13s ms %9s ms\n" "$sp" "$n" "$(median <"$work/attach")" "$(median <"$work/total")"
    done
done
