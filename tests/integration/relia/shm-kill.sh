#!/bin/bash
# tests/integration/relia/shm-kill.sh: no kill of a job leaves its shared
# memory behind (core/pshm/README "Shared memory without names").
#
# usage: shm-kill.sh [POINTS]   (default 20; run from the build tree, or
#                                with TEST_BUILDDIR / TEST_LAUNCHER set)
# Runs `gasnetrun_ibv -n 4 shm-life 2 200` (tests/integration/relia/shm-life.c:
# AM queue file, attached and created segments, 200 ms between creating
# and publishing one, puts) twice to time it (T: the faster run),
# then kills every process of the job at once with SIGKILL at POINTS
# moments spread over [0, T) (from start-up to exit), in two modes:
#   pgrp  kill -9 of the job's process group (the launcher runs under
#         setsid, as a batch system's job step would);
#   pids  kill -9 of every pid that carries this run's tag in its
#         environment (launcher and ranks), in one kill command.
# After each kill it waits until no process of the job is alive (zombies
# do not count: their memory is already released), then checks that the
# listings of /dev/shm and /tmp equal those taken before, and that the
# space used in /dev/shm is back where it was.
#
# Exactness: other jobs on the host use /dev/shm and /tmp too.  When it can
# (root, unshare), the script runs itself in a private mount namespace with
# fresh tmpfs instances on /dev/shm and /tmp, where every difference is
# ours.  Otherwise it compares the shared directories and counts only new
# entries named gasnet* (every name the library ever used) that survive 1 s
# and do not belong to another job whose launcher still runs
# (gasnet-ibv-<pid>-...), and skips the space check.
# Prints one line per kill and "PASS: ..." or "FAIL: ..." lines; exits 0
# only if every check passed.
set -u
points=${1:-20}
. "$(dirname "$0")/shm-private.sh"
if [ -n "$exact" ]; then
    echo "mode: private /dev/shm and /tmp (exact comparison)"
else
    echo "mode: shared /dev/shm and /tmp (new gasnet* entries that last 1 s count)"
fi

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

listing() { ls -A /dev/shm /tmp 2>/dev/null | sort; }
used_kb() { # blocks in use x block size, in kB (one fork: the checks run under load)
    local b f z
    read -r b f z < <(stat -f -c '%b %f %S' /dev/shm 2>/dev/null) && echo $(((b - f) * z / 1024))
}
# Microseconds since the epoch, from bash's clock.
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }

# Live (not zombie) processes carrying tag $1 (bash builtins after one grep:
# the kill must follow the scan closely).
tagged() {
    local f pid st
    for f in $(grep -lzx -- "SHMKILL_TAG=$1" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${f#/proc/}
        pid=${pid%/environ}
        { read -r st <"/proc/$pid/stat"; } 2>/dev/null || continue
        st=${st##*) }
        [ "${st%% *}" = Z ] || echo "$pid"
    done
}

# Starts the job in its own session; sets job_pid.  $1 = tag.
start_job() {
    SHMKILL_TAG=$1 setsid "$launcher" -n 4 "$prog" 2 200 >"$outdir/job.out" 2>&1 </dev/null &
    job_pid=$!
}

outdir=$(mktemp -d "$builddir/shm-kill.XXXXXX")
outdir=$(cd "$outdir" && pwd)
trap 'rm -rf "$outdir"' EXIT

base_list=$(listing)
base_used=$(used_kb)

# Two clean runs: the faster one's time spreads the kill points (the first
# may pay for cold caches).
T_us=
for k in 1 2; do
    t0=$(now_us)
    start_job "shmkill-$$-clean"
    wait "$job_pid"
    rc=$?
    t=$(($(now_us) - t0))
    if [ $rc -ne 0 ] || ! grep -q PASS "$outdir/job.out"; then
        cat "$outdir/job.out"
        fail "clean run $k ended with code $rc"
        exit 1
    fi
    [ -n "$T_us" ] && [ "$T_us" -le "$t" ] || T_us=$t
done
printf -v T '%d.%03d' $((T_us / 1000000)) $((T_us % 1000000 / 1000))
echo "clean run: ${T} s"
base_list=$(listing)
base_used=$(used_kb)

# $1 = mode, $2 = point index.  One kill and its checks.
one_kill() {
    local mode=$1 i=$2 tag="shmkill-$$-$1-$2" delay pids= waited left new used
    local d=$((T_us * i / points))
    printf -v delay '%d.%03d' $((d / 1000000)) $((d % 1000000 / 1000))
    start_job "$tag"
    sleep "$delay"
    local tk
    { # (stderr: bash's own "Killed" notice of the background job)
        if [ "$mode" = pgrp ]; then
            kill -9 -- "-$job_pid" && pids=group
        else
            pids=$(tagged "$tag")
            [ -n "$pids" ] && kill -9 $pids
        fi
        tk=$(now_us)
        wait "$job_pid"
        rc=$?
    } 2>/dev/null
    [ "$pids" = group ] || pids="$(echo $pids | wc -w) processes"
    # Every process of the job gone (those that escaped the kill die by
    # their parent-death signal or lost contact).
    waited=0
    while [ -n "$(tagged "$tag")" ] && [ $waited -lt 100 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    left=$(tagged "$tag")
    if [ -n "$left" ]; then
        fail "$mode point $i (${delay} s): processes still alive 10 s after the kill: $left"
        kill -9 $left 2>/dev/null
    fi
    new=$(comm -13 <(echo "$base_list") <(listing))
    if [ -n "$new" ] && [ -z "$exact" ]; then
        sleep 1
        new=$(comm -13 <(echo "$base_list") <(listing) | grep -Fx -- "$new" | while read -r e; do
            case $e in
            gasnet-ibv-[0-9]*) # another job's, while its launcher lives
                p=${e#gasnet-ibv-}
                p=${p%%-*}
                kill -0 "$p" 2>/dev/null || echo "$e" ;;
            gasnet*) echo "$e" ;;
            esac
        done)
    fi
    used=
    if [ -n "$exact" ]; then
        used=$(used_kb)
        waited=0
        while [ "$used" != "$base_used" ] && [ $waited -lt 20 ]; do
            sleep 0.1
            waited=$((waited + 1))
            used=$(used_kb)
        done
    fi
    local gone
    gone=$(($(now_us) - tk))
    printf -v gone '%d.%02d' $((gone / 1000000)) $((gone % 1000000 / 10000))
    printf 'kill %-4s point %2d at %6s s: %s, job code %3d, checked after %s s, new entries: %s%s\n' \
        "$mode" "$i" "$delay" "$pids" "$rc" "$gone" "$(echo ${new:-none})" \
        "${used:+, /dev/shm used ${used} kB (before ${base_used})}"
    [ -z "$new" ] || fail "$mode point $i (${delay} s): left behind: $(echo $new)"
    [ -z "$exact" ] || [ "$used" = "$base_used" ] ||
        fail "$mode point $i (${delay} s): /dev/shm holds ${used} kB, ${base_used} kB before"
    # Each point on its own: leftovers are removed (private mounts: they are
    # ours) or, in shared directories, become part of the baseline.
    if [ -n "$new" ] && [ -n "$exact" ]; then
        (cd /dev/shm && echo "$new" | xargs -r rm -f --)
        (cd /tmp && echo "$new" | xargs -r rm -f --)
    fi
    base_list=$(listing)
    [ -z "$exact" ] || base_used=$(used_kb)
}

for mode in pgrp pids; do
    for i in $(seq 0 $((points - 1))); do one_kill "$mode" "$i"; done
done

if [ $fails -eq 0 ]; then
    echo "PASS: $((2 * points)) kills (2 modes x $points points over ${T} s): nothing left behind"
    exit 0
fi
echo "FAIL: $fails failed checks"
exit 1
