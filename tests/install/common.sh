# shellcheck shell=bash
# shellcheck disable=SC2154 # name, work, keep, builddir, ok: set by the caller (below)
# tests/install/common.sh: helpers of check-install.sh,
# check-runtime-build.sh and check-legion-build.sh (sourced).  The caller
# sets `name` (the prefix of every line), `work` (its temporary directory),
# `keep` (1: keep it even on success), `builddir` (for dist_tarball) and
# `ok=0`, sets ok=1 when it passed, and traps EXIT to cleanup.

# step TEXT: a progress line.
step() { echo "$name: $*"; }
# fail TEXT [LOG]: the failing step, the tail of its log, exit 1.
fail() {
    echo "$name: FAIL: $1"
    if [ $# -ge 2 ] && [ -f "$2" ]; then tail -n 30 "$2" | sed 's/^/    /'; fi
    exit 1
}
# run LOG COMMAND...: runs quietly, fails with the log's tail.
run() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || fail "'$*' failed (log: $log)" "$log"
}
# cleanup: removes the temporary directory after a pass, else says where it is.
cleanup() {
    if [ "$ok" = 1 ] && [ "$keep" != 1 ]; then
        rm -rf "$work"
    else
        echo "$name: files kept in $work"
    fi
}
# runtime_setup NAME TAG: the start of check-runtime-build.sh and
# check-legion-build.sh: the variables above (work: a new
# gasnet-ibv-TAG.XXXXXX; keep: KEEP_RUNTIME_TMP), builddir (TEST_BUILDDIR,
# default .), nprocs=4, the cleanup trap, and `tarball` (dist_tarball).
runtime_setup() {
    name=$1
    builddir=$(cd "${TEST_BUILDDIR:-.}" && pwd)
    # shellcheck disable=SC2034 # used by the caller
    nprocs=4
    work=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-ibv-$2.XXXXXX")
    keep=${KEEP_RUNTIME_TMP:-0}
    ok=0
    trap cleanup EXIT
    dist_tarball
}
# dist_tarball: sets `tarball` to TEST_DIST_TARBALL, or to the `make dist`
# tarball of the configured build tree $builddir, moved into $work.
dist_tarball() {
    tarball=${TEST_DIST_TARBALL:-}
    [ -n "$tarball" ] && return 0
    [ -f "$builddir/Makefile" ] || fail "no TEST_DIST_TARBALL and no configured build tree in $builddir"
    step "make dist in $builddir"
    run "$work/dist.log" make -C "$builddir" dist
    # shellcheck disable=SC2012 # the newest tarball; names have no blanks
    tarball=$(ls -t "$builddir"/*.tar.gz | head -n 1)
    mv "$tarball" "$work/" && tarball=$work/$(basename "$tarball")
}
# no_warnings LOG...: configure or make printed no warning and no
# unrecognised option into any LOG.
no_warnings() {
    local log
    for log in "$@"; do
        if grep -qi "unrecognized option\|warning" "$log"; then
            fail "$(basename "$log"): $(grep -i -m1 "unrecognized option\|warning" "$log")" "$log"
        fi
    done
}
# A runtime drives these builds from its own configure/shell, not from inside
# our `make check`: drop the make state the harness passes down (MAKELEVEL > 0
# would make every make print "Entering directory" into captured output).
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES
