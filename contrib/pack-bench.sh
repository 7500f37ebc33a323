#!/usr/bin/env bash
# contrib/pack-bench.sh: packs the host tier of `make bench` (PSHM and the
# many-process tier; tests/perf/README) into one tarball that runs on a bare
# Debian machine: the benchmark programs, gasnetrun_ibv, the bench scripts
# and every shared library they load (ldd) except the C library's own, and
# a runner.
#
#   contrib/pack-bench.sh [--builddir DIR] [--out FILE.tar.gz]
#
# On the other machine (needs python3; python3-matplotlib for the plots):
#
#   tar xzf gasnet-ibv-bench.tar.gz && gasnet-ibv-bench/run-bench.sh [bench.py options]
#
# run-bench.sh runs bench.py --no-guest --no-icount with the packed
# libraries first in LD_LIBRARY_PATH and the results (JSON and SVG) under
# gasnet-ibv-bench/results/ unless --out is given.  The C library (libc, libm,
# the dynamic loader...) is the machine's own: the programs need a glibc at
# least as new as the build machine's.
set -euo pipefail

builddir=.
out=gasnet-ibv-bench.tar.gz
while [ $# -gt 0 ]; do
    case $1 in
    --builddir) builddir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "pack-bench: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
progs=(gasnetrun_ibv)
for p in perf-am perf-rma perf-barrier perf-twoway perf-many perf-start \
         ref-memcpy ref-shm ref-many; do
    progs+=("tests/perf/$p")
done
# Every bench*.py (bench.py imports the others; a list here once missed a
# new one) and the schema.
scripts=(bench.schema.json)
for s in "$here"/tests/perf/bench*.py; do scripts+=("$(basename "$s")"); done

for p in "${progs[@]}"; do
    [ -x "$builddir/$p" ] || {
        echo "pack-bench: $builddir/$p is not built (run make bench once, or make $p)" >&2
        exit 1
    }
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/pack-bench.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/gasnet-ibv-bench
mkdir -p "$top/tests/perf" "$top/lib" "$top/results"

for p in "${progs[@]}"; do
    cp "$builddir/$p" "$top/$p"
done
for s in "${scripts[@]}"; do
    cp "$here/tests/perf/$s" "$top/tests/perf/$s"
done

# Every library any program loads, resolved on this machine, except glibc's
# (the target has its own, and mixing a packed libc with the system's loader
# breaks).
is_glibc() {
    case $(basename "$1") in
    ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*) return 0 ;;
    libutil.so*|libnsl.so*|libanl.so*|libmvec.so*) return 0 ;;
    esac
    return 1
}
for p in "${progs[@]}"; do
    ldd "$builddir/$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
    is_glibc "$lib" || cp -L "$lib" "$top/lib/"
done

git -C "$here" rev-parse HEAD >"$top/COMMIT" 2>/dev/null || echo unknown >"$top/COMMIT"

cat >"$top/run-bench.sh" <<'EOF'
#!/usr/bin/env bash
# run-bench.sh: the host tier of make bench from this unpacked directory
# (made by contrib/pack-bench.sh; the commit is in COMMIT).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 ||
    { echo "run-bench: python3 is needed (apt-get install python3 python3-matplotlib)" >&2; exit 1; }
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
outdir=()
case " $* " in *" --out "*) ;; *) outdir=(--out "$here/results") ;; esac
echo "run-bench: gasnet-ibv $(cat "$here/COMMIT"), $(nproc) cores"
exec python3 "$here/tests/perf/bench.py" --builddir "$here" --srcdir "$here" \
    --no-guest --no-icount "${outdir[@]}" "$@"
EOF
chmod +x "$top/run-bench.sh"

case $out in /*) ;; *) out=$PWD/$out ;; esac
tar czf "$out" -C "$stage" gasnet-ibv-bench
echo "pack-bench: $out ($(du -h "$out" | cut -f1); $(ls "$top/lib" | wc -l) libraries)"
