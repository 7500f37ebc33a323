#!/bin/sh
# tests/surface/check-surface.sh: is every public name of GASNet-EX visible
# through the same header?
#
#   check-surface.sh --cc "CC" --cflags "CPPFLAGS CFLAGS" --ld "LD" \
#                    --libs "LDFLAGS LIBS" [--tools] [--keep DIR]
#
# The names are the rows of gasnet-public-names.tsv beside this script
# (header, name, kind); rows listed in excluded.tsv (header, name, reason)
# are skipped.  For each header one C file is generated that includes only
# that header and checks all of its names, one line per name:
#   macro     #ifndef NAME / #error; a name with lower-case letters (a
#             function-like macro in GASNet) may instead be a function or
#             variable here (address taken, as below); one ending in _t may
#             be a typedef or a function (sizeof __typeof__, GCC/clang)
#   type      (name ends in _t) a variable of the type and its sizeof
#   field     (struct member, table below) sizeof of the member
#   constant  (upper-case declared name: enumerator) its value
#   other     (function or variable) its address, kept, so that linking
#             needs the symbol
# Each file is compiled once (and linked once unless --ld is empty); every
# error is mapped back to the name on that line.  --tools checks only the
# gasnet_tools.h rows, as a tools-only client (no conduit).
#
# Output: one line per missing name, "excluded but visible" notes, and
# "N passed, N failed (N excluded)".  Exit 0 iff nothing failed.
# See tests/surface/README.md.

here=$(cd "$(dirname "$0")" && pwd)
names="$here/gasnet-public-names.tsv"
excluded="$here/excluded.tsv"
cc= cflags= ld= libs= tools=0 keep=

usage() {
    echo "usage: $0 --cc CC --cflags FLAGS --ld LD --libs LIBS [--tools] [--keep DIR]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --tools | --help) ;;
    *) [ $# -ge 2 ] || { echo "check-surface.sh: $1 needs a value" >&2; usage; } ;;
    esac
    case $1 in
    --cc) cc=$2; shift 2 ;;
    --cflags) cflags=$2; shift 2 ;;
    --ld) ld=$2; shift 2 ;;
    --libs) libs=$2; shift 2 ;;
    --tools) tools=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --help) usage ;;
    *) echo "check-surface.sh: unknown argument '$1'" >&2; usage ;;
    esac
done
[ -n "$cc" ] || { echo "check-surface.sh: --cc is required (e.g. --cc gcc)" >&2; usage; }
. "$here/common.sh"
surface_setup check-surface "$cc" "$keep" "$names" "$excluded"

# The list was measured in a SEQ, SEGMENT_FAST, single-threaded-tools
# configuration with gcc on x86_64 Linux: those names are checked as this
# configuration's (GASNET_SEQ as GASNET_PAR in a PAR build,
# PLATFORM_COMPILER_GNU as PLATFORM_COMPILER_CLANG with clang, ...).
if [ $tools = 1 ]; then probe_h=gasnet_tools.h; else probe_h=gasnetex.h; fi
cat > "$work/probe.c" <<EOF
#include <$probe_h>
#if defined(GASNET_PAR)
surface_model=PAR
#elif defined(GASNET_PARSYNC)
surface_model=PARSYNC
#else
surface_model=SEQ
#endif
#if defined(GASNET_SEGMENT_LARGE)
surface_segment=LARGE
#elif defined(GASNET_SEGMENT_EVERYTHING)
surface_segment=EVERYTHING
#else
surface_segment=FAST
#endif
#if defined(GASNETT_THREAD_SAFE)
surface_tools=SAFE
#else
surface_tools=SINGLE
#endif
surface_platform=PLATFORM_COMPILER_FAMILYNAME PLATFORM_ARCH_FAMILYNAME PLATFORM_OS_FAMILYNAME
EOF
# shellcheck disable=SC2086
$cc $cflags -E "$work/probe.c" > "$work/probe.i" 2> "$work/probe.log" || {
    echo "check-surface.sh: a client including only <$probe_h> does not compile with"
    echo "  $cc $cflags"
    head -n 20 "$work/probe.log"
    echo "0 passed, 1 failed"
    exit 1
}
model=$(sed -n 's/^surface_model=//p' "$work/probe.i")
segment=$(sed -n 's/^surface_segment=//p' "$work/probe.i")
tsafe=$(sed -n 's/^surface_tools=//p' "$work/probe.i")
platform=$(sed -n 's/^surface_platform=//p' "$work/probe.i")
set -- $platform
cc_family=${1:-GNU} arch=${2:-X86_64} os=${3:-LINUX}
echo "configuration: GASNET_$model, GASNET_SEGMENT_$segment, GASNETT_THREAD_$tsafe," \
    "compiler $cc_family, $arch, $os"

# The rows to check: header<TAB>name<TAB>kind<TAB>excluded(0/1).
awk -F'\t' -v tools=$tools -v excl="$excluded" \
    -v model="GASNET_$model" -v segment="GASNET_SEGMENT_$segment" -v tsafe="GASNETT_THREAD_$tsafe" \
    -v cc_family="$cc_family" -v arch="$arch" -v os="$os" '
    BEGIN {
        while ((getline line < excl) > 0) {
            if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
            split(line, f, "\t")
            x[f[1] "\t" f[2]] = 1
        }
    }
    /^#/ || NF < 3 { next }
    tools && $1 != "gasnet_tools.h" { next }
    $2 == "GASNET_SEQ" { $2 = model }
    $2 == "GASNET_SEGMENT_FAST" { $2 = segment }
    $2 == "GASNETT_THREAD_SINGLE" { $2 = tsafe }
    $2 ~ /^PLATFORM_COMPILER_GNU(_C)?$/ { sub(/GNU/, cc_family, $2) }
    $2 == "PLATFORM_ARCH_X86_64" { $2 = "PLATFORM_ARCH_" arch }
    $2 == "PLATFORM_OS_LINUX" { $2 = "PLATFORM_OS_" os }
    { print $1 "\t" $2 "\t" $3 "\t" (($1 "\t" $2) in x ? 1 : 0) }
' "$names" > "$work/rows" || exit 2

# Struct members of the list: member -> expression reaching it.
cat > "$work/fields" <<'EOF'
gex_addr	((gex_Memvec_t *)0)->gex_addr
gex_len	((gex_Memvec_t *)0)->gex_len
gex_index	((gex_AM_Entry_t *)0)->gex_index
gex_fnptr	((gex_AM_Entry_t *)0)->gex_fnptr
gex_flags	((gex_AM_Entry_t *)0)->gex_flags
gex_nargs	((gex_AM_Entry_t *)0)->gex_nargs
gex_cdata	((gex_AM_Entry_t *)0)->gex_cdata
gex_name	((gex_AM_Entry_t *)0)->gex_name
gex_srcrank	((gex_Token_Info_t *)0)->gex_srcrank
gex_ep	((gex_Token_Info_t *)0)->gex_ep
gex_entry	((gex_Token_Info_t *)0)->gex_entry
gex_is_req	((gex_Token_Info_t *)0)->gex_is_req
gex_is_long	((gex_Token_Info_t *)0)->gex_is_long
gex_rank	((gex_EP_Location_t *)0)->gex_rank
gex_ep_index	((gex_EP_Location_t *)0)->gex_ep_index
gex_jobrank	((gex_RankInfo_t *)0)->gex_jobrank
gex_progress_fn	((gex_ProgressThreadInfo_t *)0)->gex_progress_fn
gex_progress_arg	((gex_ProgressThreadInfo_t *)0)->gex_progress_arg
gex_thread_roles	((gex_ProgressThreadInfo_t *)0)->gex_thread_roles
gex_device_list	((gex_ProgressThreadInfo_t *)0)->gex_device_list
gex_class	((gex_MK_Create_args_t *)0)->gex_class
gex_args	((gex_MK_Create_args_t *)0)->gex_args
gex_class_cuda_uva	((gex_MK_Create_args_t *)0)->gex_args.gex_class_cuda_uva
gex_class_hip	((gex_MK_Create_args_t *)0)->gex_args.gex_class_hip
gex_class_ze	((gex_MK_Create_args_t *)0)->gex_args.gex_class_ze
gex_CUdevice	((gex_MK_Create_args_t *)0)->gex_args.gex_class_cuda_uva.gex_CUdevice
gex_hipDevice	((gex_MK_Create_args_t *)0)->gex_args.gex_class_hip.gex_hipDevice
gex_zeDevice	((gex_MK_Create_args_t *)0)->gex_args.gex_class_ze.gex_zeDevice
gex_zeContext	((gex_MK_Create_args_t *)0)->gex_args.gex_class_ze.gex_zeContext
gex_zeMemoryOrdinal	((gex_MK_Create_args_t *)0)->gex_args.gex_class_ze.gex_zeMemoryOrdinal
EOF

# One C file per header; map file "line<TAB>row-index" for the declared names.
headers=$(cut -f1 "$work/rows" | awk '!seen[$0]++')
i=0
for h in $headers; do
    i=$((i + 1))
    awk -F'\t' -v h="$h" -v src="$work/chk$i.c" -v map="$work/map$i" \
        -v fields="$work/fields" '
        function out(s) { print s > src; line++ }
        BEGIN {
            while ((getline l < fields) > 0) { split(l, f, "\t"); fld[f[1]] = f[2] }
            line = 0
            out("#include <" h ">")
            out("const void *volatile surface_sink;")
            out("volatile long surface_val;")
        }
        $1 != h { next }
        { row[++n] = NR; nm[n] = $2; kind[n] = $3 }
        END {
            for (k = 1; k <= n; k++) if (kind[k] == "macro" && nm[k] !~ /[a-z]/) {
                out("#ifndef " nm[k])
                out("#error \"surface-missing: " nm[k] "\"")
                out("#endif")
            }
            out("int main(void)")
            out("{")
            for (k = 1; k <= n; k++) {
                s = nm[k]
                if (kind[k] == "macro") {
                    if (s !~ /[a-z]/) continue
                    # A function-like macro in GASNet may be a function here.
                    out("#ifndef " s)
                    if (s ~ /_t$/) # a type, or a function such as gasnett_count0s_uint32_t
                        out("    surface_val = (long)sizeof(__typeof__(" s "));")
                    else
                        out("    surface_sink = (const void *)&" s ";")
                    print line "\t" row[k] > map
                    out("#endif")
                    continue
                }
                if (s in fld)
                    out("    surface_val = (long)sizeof(" fld[s] ");")
                else if (s ~ /_t$/)
                    out("    { " s " *surface_p = 0; surface_sink = &surface_p; surface_val = (long)sizeof(" s "); }")
                else if (s ~ /^[A-Z][A-Z0-9_]*$/)
                    out("    surface_val = (long)(" s ");")
                else
                    out("    surface_sink = (const void *)&" s ";")
                print line "\t" row[k] > map
            }
            out("    return 0;")
            out("}")
            close(src); close(map)
        }
    ' "$work/rows"
    [ -f "$work/map$i" ] || : > "$work/map$i"
done

# Compile (and link) each file; collect failing row numbers in $work/bad.
: > "$work/bad"
: > "$work/broken"
i=0
for h in $headers; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # the flag strings are word lists
    $cc $cflags -w $errlimit -c "$work/chk$i.c" -o "$work/chk$i.o" > "$work/cc$i.log" 2>&1
    cc_rc=$?
    # Errors on a line of our file name its row; "#error" names the macro.
    awk -v f="chk$i.c" -v map="$work/map$i" -v h="$h" -v broken="$work/broken" '
        BEGIN { while ((getline l < map) > 0) { split(l, m, "\t"); r[m[1]] = m[2] } }
        /surface-missing: / {
            s = $0; sub(/.*surface-missing: /, "", s); sub(/".*/, "", s)
            print "M\t" h "\t" s; next
        }
        / error: / || / fatal error: / {
            split($0, p, ":")
            n = split(p[1], q, "/")
            if (q[n] == f && (p[2] in r)) { print "R\t" r[p[2]]; next }
            print h ": " $0 > broken
        }
    ' "$work/cc$i.log" >> "$work/bad"
    if [ $cc_rc -ne 0 ] && ! grep -q . "$work/bad" && ! grep -q . "$work/broken"; then
        { echo "$h: the compiler failed without a usable error:"; cat "$work/cc$i.log"; } >> "$work/broken"
    fi
    if [ $cc_rc -eq 0 ] && [ -n "$ld" ]; then
        # shellcheck disable=SC2086
        $ld -o "$work/chk$i" "$work/chk$i.o" $libs > "$work/ld$i.log" 2>&1 ||
            awk -v h="$h" -v broken="$work/broken" '
                /undefined reference to `/ {
                    s = $0; sub(/.*undefined reference to `/, "", s); sub(/'\''.*/, "", s)
                    print "M\t" h "\t" s; hit = 1; next
                }
                /[Uu]ndefined symbol/ { hit = 1 }
                END { if (!hit) print h ": link failed (see below)" > broken }
            ' "$work/ld$i.log" >> "$work/bad"
        grep -q "link failed" "$work/broken" 2>/dev/null && cat "$work/ld$i.log" >> "$work/broken"
    fi
done

# Report.
if [ -s "$work/broken" ]; then
    echo "check-surface: errors not tied to a single name (the header itself fails?):"
    head -n 40 "$work/broken"
fi
awk -F'\t' -v bad="$work/bad" -v broken="$work/broken" '
    BEGIN {
        while ((getline l < bad) > 0) {
            split(l, b, "\t")
            if (b[1] == "R") badrow[b[2]] = 1; else badname[b[2] "\t" b[3]] = 1
        }
        while ((getline l < broken) > 0) { split(l, b, ": "); brokenh[b[1]] = 1 }
    }
    {
        seen[$1 "\t" $2] = 1
        miss = (NR in badrow) || (($1 "\t" $2) in badname) || ($1 in brokenh)
        if ($4 == 1) {
            nexcl++
            if (!miss) { print "excluded but visible: " $1 " " $2; nvis++ }
        } else if (miss) {
            print "MISSING: " $1 " " $2 " (" $3 ")"; nfail++
        } else npass++
    }
    END {
        for (k in badname) if (!(k in seen)) {
            split(k, b, "\t")
            print "MISSING: " b[1] " needs the undefined symbol " b[2] " (not a listed name)"
            nfail++
        }
        printf "%d passed, %d failed (%d excluded, %d of them visible)\n",
               npass, nfail, nexcl, nvis
        exit nfail > 0
    }
' "$work/rows"
