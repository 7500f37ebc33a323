#!/usr/bin/env bash
# tests/harness/manifest-programs.sh [--libraries] BUILDDIR MANIFEST...
#
# Prints the make targets that the jobs of the MANIFESTs (harness format,
# tests/harness/README) need in the configured tree BUILDDIR: every program
# of its Makefile (check, noinst and bin programs) that a job's command
# names (a word after "--", with or without a leading "./", so also the
# program a wrapper script such as rnr-zero.sh runs), and gasnetrun_ibv
# when a job runs under the launcher (nprocs not "-").  --libraries adds
# the installed libraries ($(lib_LIBRARIES)), so that a build restricted to
# these targets still compiles the whole library.  A tier that runs only
# some manifests in a build of its own (the sanitizer tier, the Soft-RoCE
# variants) makes just these instead of every check program.
set -euo pipefail
libs=0
[ "${1:-}" = --libraries ] && { libs=1; shift; }
[ $# -ge 2 ] || { echo "usage: $0 [--libraries] BUILDDIR MANIFEST..." >&2; exit 2; }
build=$1
shift
mk=$(mktemp "${TMPDIR:-/tmp}/manifest-programs.XXXXXX")
trap 'rm -f "$mk"' EXIT
# print VARS: the value of the make variables VARS in BUILDDIR's Makefile.
print() {
    printf 'manifest-programs-list:\n\t@echo %s\n' "$1" >"$mk"
    make -s --no-print-directory -C "$build" -f Makefile -f "$mk" manifest-programs-list
}
# shellcheck disable=SC2016 # make variables, expanded by make
progs=$(print '$(check_PROGRAMS) $(noinst_PROGRAMS) $(bin_PROGRAMS)')
# shellcheck disable=SC2016
[ $libs = 0 ] || print '$(lib_LIBRARIES)' | tr ' ' '\n' | grep .
awk -v progs="$progs" '
    BEGIN { n = split(progs, p, " "); for (i = 1; i <= n; i++) known[p[i]] = 1 }
    /^[[:space:]]*(#|$)/ { next }
    {
        cmd = index($0, " -- ")
        if (!cmd) next
        if ($2 != "-") print "gasnetrun_ibv"
        m = split(substr($0, cmd + 4), w, /[[:space:]]+/)
        for (i = 1; i <= m; i++) {
            sub(/^\.\//, "", w[i])
            if (w[i] in known) print w[i]
        }
    }' "$@" | awk '!seen[$0]++'
