#!/bin/bash
# tests/integration/relia/shm-symlink.sh: names planted by someone else do
# not stop a job (core/pshm/README "Shared memory without names").
#
# usage: shm-symlink.sh   (run from the build tree, or with TEST_BUILDDIR /
#                          TEST_LAUNCHER set)
# Runs `gasnetrun_ibv -n 4 shm-life 2` whose ranks, before they start, plant
# symlinks at every name a job could once use in /dev/shm, knowing the job
# id (the attacker of the old scheme had to guess it from the names it
# saw): gasnet-ibv-<jobid>-am<r>, -seg<r> and -cseg<s>-r<r> for every rank
# r and serial s < 4, each pointing at a victim file (as root the links are
# given to user nobody, i.e. another user's).  A watcher lists /dev/shm and
# /tmp every 20 ms while the job runs.  Checks: the job passes, the victim
# file is unchanged, and no entry appeared in /dev/shm or /tmp other than
# the planted links (as in shm-kill.sh, in a private mount namespace when
# it can, else among other jobs' entries: then only gasnet-ibv-<jobid>*
# entries count).
set -u
. "$(dirname "$0")/shm-private.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

outdir=$(mktemp -d "$builddir/shm-symlink.XXXXXX")
outdir=$(cd "$outdir" && pwd)
trap 'rm -rf "$outdir"' EXIT
victim=$outdir/victim
echo "victim file: must stay as it is" >"$victim"
sum=$(cksum <"$victim")

# Run by every rank before the program: plant, then become the program.
plant='
for r in 0 1 2 3; do
    for n in am$r seg$r cseg0-r$r cseg1-r$r cseg2-r$r cseg3-r$r; do
        l=/dev/shm/gasnet-ibv-$GASNETRUN_JOBID-$n
        ln -s "$VICTIM" "$l" 2>/dev/null && [ "$(id -u)" = 0 ] && chown -h nobody "$l" 2>/dev/null
    done
done
echo "rank $GASNETRUN_RANK planted links for job $GASNETRUN_JOBID"
exec "$@"'

ls -A /dev/shm /tmp 2>/dev/null | sort >"$outdir/before"
(
    while :; do
        ls -A /dev/shm /tmp 2>/dev/null
        sleep 0.02
    done
) >"$outdir/seen" 2>/dev/null &
watcher=$!
VICTIM=$victim "$launcher" -n 4 /bin/bash -c "$plant" plant "$prog" 2 >"$outdir/job.out" 2>&1 </dev/null
rc=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
cat "$outdir/job.out"

jobid=$(sed -n 's/.*planted links for job \([^ ]*\).*/\1/p' "$outdir/job.out" | head -1)
links=$(ls /dev/shm 2>/dev/null | grep -c -- "^gasnet-ibv-${jobid:-none}-")
echo "planted: $links links for job ${jobid:-?}; job exit code $rc"
[ -n "$jobid" ] && [ "$links" -eq 24 ] || fail "the ranks did not plant the 24 links"
[ $rc -eq 0 ] && grep -q PASS "$outdir/job.out" || fail "the job failed among the planted links (code $rc)"
[ "$(cksum <"$victim")" = "$sum" ] || fail "the victim file changed"
new=$(sort -u "$outdir/seen" | comm -13 "$outdir/before" - | grep -v -- "^gasnet-ibv-${jobid:-none}-\(am\|seg\|cseg\)[0-9]*\(-r[0-9]\)\?$" | grep -v '^$' | grep -v ':$')
if [ -z "$exact" ]; then
    new=$(echo "$new" | grep -- "^gasnet-ibv-${jobid:-none}")
fi
[ -z "$new" ] || fail "names appeared during the job: $(echo $new)"
rm -f /dev/shm/gasnet-ibv-"${jobid:-none}"-*

if [ $fails -eq 0 ]; then
    echo "PASS: the job ran among 24 planted links (another user's), the victim file is unchanged, and no name of the job appeared in /dev/shm or /tmp${exact:+ (private mounts: exact)}"
    exit 0
fi
exit 1
