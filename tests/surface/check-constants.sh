#!/bin/sh
# tests/surface/check-constants.sh: does a client see GASNet-EX's numbers?
#
#   check-constants.sh --cc "CC" --cflags "CPPFLAGS CFLAGS" \
#                      --libs "LDFLAGS LIBS" [--keep DIR]
#
# gasnet-constant-values.tsv beside this script holds GASNet-EX 2025.8.0's
# value of every public integer constant and the size or offset of its
# public types (name<TAB>value; a name may be an expression such as
# sizeof(gex_Token_Info_t)).  One C program is generated that includes the
# public headers and prints every row's value, read as a long long before
# gasnet_init (one line per row, so a compiler error names its row; a
# variable such as GASNET_TEAM_ALL reads as its value before gasnet_init,
# as in the reference); it is built with
# CC, CFLAGS and LIBS (the headers' link checks need the library) and run,
# and each value is compared with GASNet's.
#
# The reference was measured with gcc 12.2.0 in a SEQ, SEGMENT_FAST build;
# the program is a SEQ client, and the GASNET_SEGMENT_FAST row is checked
# as the configured segment's macro (GASNET_SEGMENT_LARGE = 1, ...).
#
# constants-excluded.tsv (name<TAB>ours<TAB>reason) lists the rows where
# this library differs on purpose: "ours" is the value it has instead
# ("undefined" if it has none; the row fails if that changes too), or
# "compiler" for a row compared only when the client's compiler is the
# reference's gcc 12.2.0 (skipped otherwise).  A pinned row that matches
# GASNet's value again is reported, so the list cannot go stale silently.
#
# Output: one "DIFFERS:" or "MISSING:" line per failing row, then
# "N passed, N failed (N excluded)".  Exit 0 iff nothing failed.
# See tests/surface/README.md.

here=$(cd "$(dirname "$0")" && pwd)
values="$here/gasnet-constant-values.tsv"
excluded="$here/constants-excluded.tsv"
cc= cflags= libs= keep=

usage() {
    echo "usage: $0 --cc CC --cflags FLAGS --libs LIBS [--keep DIR]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --help) usage ;;
    --cc | --cflags | --libs | --keep) [ $# -ge 2 ] || usage ;;
    *) echo "check-constants.sh: unknown argument '$1'" >&2; usage ;;
    esac
    case $1 in
    --cc) cc=$2 ;;
    --cflags) cflags=$2 ;;
    --libs) libs=$2 ;;
    --keep) keep=$2 ;;
    esac
    shift 2
done
[ -n "$cc" ] || { echo "check-constants.sh: --cc is required" >&2; usage; }
. "$here/common.sh"
surface_setup check-constants "$cc" "$keep" "$values" "$excluded"

# The client's compiler and segment, read through the compiler and the
# headers alone.
cat > "$work/probe.c" <<'EOF'
#include <gasnetex.h>
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
probe_cc=gcc-__GNUC__.__GNUC_MINOR__.__GNUC_PATCHLEVEL__
#else
probe_cc=other
#endif
#if defined(GASNET_SEGMENT_LARGE)
probe_segment=LARGE
#elif defined(GASNET_SEGMENT_EVERYTHING)
probe_segment=EVERYTHING
#else
probe_segment=FAST
#endif
EOF
# shellcheck disable=SC2086
$cc $cflags -E "$work/probe.c" > "$work/probe.i" 2> "$work/probe.log" || {
    echo "check-constants.sh: <gasnetex.h> does not preprocess with $cc $cflags"
    head -n 20 "$work/probe.log"
    exit 1
}
client_cc=$(sed -n 's/^probe_cc=//p' "$work/probe.i" | tr -d ' ')
segment=$(sed -n 's/^probe_segment=//p' "$work/probe.i")
same_cc=0
[ "$client_cc" = gcc-12.2.0 ] && same_cc=1
echo "client: $client_cc, GASNET_SEGMENT_$segment (reference: gcc-12.2.0, GASNET_SEGMENT_FAST)"

grep -v '^#' "$values" | awk -F'\t' -v seg="GASNET_SEGMENT_$segment" '
    NF < 2 { next }
    $1 == "GASNET_SEGMENT_FAST" { $1 = seg }
    { print $1 "\t" $2 }' > "$work/rows"
: > "$work/missing"

# gen: write prog.c from rows minus missing; map "line<TAB>name".
gen() {
    awk -F'\t' -v src="$work/prog.c" -v map="$work/map" -v miss="$work/missing" '
        function out(s) { print s > src; line++ }
        BEGIN {
            while ((getline l < miss) > 0) gone[l] = 1
            out("#include <stddef.h>")
            out("#include <stdio.h>")
            out("#include <gasnetex.h>")
            out("#include <gasnet.h>")
            out("#include <gasnet_tools.h>")
            out("#include <gasnet_coll.h>")
            out("#include <gasnet_vis.h>")
            out("#include <gasnet_ratomic.h>")
            out("#include <gasnet_mk.h>")
        }
        ($1 in gone) { next }
        {
            if (!started) { out("int main(void)"); out("{"); started = 1 }
            out("    printf(\"%s\\t%lld\\n\", \"" $1 "\", (long long)(" $1 "));")
            print line "\t" $1 > map
        }
        END {
            if (!started) { out("int main(void)"); out("{") }
            out("    return 0;")
            out("}")
        }
    ' "$work/rows"
}

# Two rounds: the first finds the rows that do not compile (missing names,
# or not integer constant expressions), the second builds without them.
for round in 1 2; do
    : > "$work/map"
    gen
    # shellcheck disable=SC2086 # the flag strings are word lists
    if $cc $cflags -w $errlimit -o "$work/prog" "$work/prog.c" $libs > "$work/cc.log" 2>&1; then
        break
    fi
    awk -v map="$work/map" '
        BEGIN { while ((getline l < map) > 0) { split(l, m, "\t"); r[m[1]] = m[2] } }
        / error: / { split($0, p, ":"); if (p[1] ~ /prog\.c$/ && (p[2] in r)) print r[p[2]] }
    ' "$work/cc.log" | sort -u >> "$work/missing"
    if [ $round = 2 ] || ! grep -q . "$work/missing"; then
        echo "check-constants.sh: the program does not build with"
        echo "  $cc $cflags"
        head -n 30 "$work/cc.log"
        echo "0 passed, $(wc -l < "$work/rows") failed"
        exit 1
    fi
done
"$work/prog" > "$work/ours" || { echo "check-constants.sh: the program failed"; exit 1; }

awk -F'\t' -v ours="$work/ours" -v miss="$work/missing" -v excl="$excluded" -v same_cc=$same_cc '
    BEGIN {
        while ((getline l < ours) > 0) { split(l, f, "\t"); v[f[1]] = f[2] }
        while ((getline l < miss) > 0) v[l] = "undefined"
        while ((getline l < excl) > 0) {
            if (l ~ /^#/ || l ~ /^[ \t]*$/) continue
            split(l, f, "\t"); x[f[1]] = f[2]
        }
    }
    {
        name = $1; ref = $2; got = v[name]
        if ((name in x) && x[name] == "compiler" && !same_cc) { nskip++; next }
        if ((name in x) && x[name] != "compiler") {
            nexcl++
            if (got == ref)
                print "excluded but equal to GASNet'"'"'s: " name " " got " (prune it)"
            else if (x[name] != got) {
                print "DIFFERS: " name " GASNet " ref ", ours " got \
                      " (excluded as " x[name] ")"; nfail++
            }
            next
        }
        if (got == ref) { npass++; next }
        if (got == "undefined") print "MISSING: " name " (GASNet " ref ")"
        else print "DIFFERS: " name " GASNet " ref ", ours " got
        nfail++
    }
    END {
        printf "%d passed, %d failed (%d excluded, %d skipped: another compiler)\n",
               npass, nfail, nexcl, nskip
        exit nfail > 0
    }
' "$work/rows"
