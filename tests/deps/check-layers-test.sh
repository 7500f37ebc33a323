#!/usr/bin/env bash
# tests/deps/check-layers-test.sh: the layering check finds what it must.
#
# Builds tiny objects in a throw-away tree laid out as automake names them
# (low/libx_a-low.o ...) and runs tests/deps/check-layers.py on them with
# small layer files:
#   1. a downward call passes; a planted upward call fails, naming both
#      files, the symbol and the layers; an upward data reference fails too;
#   2. a call between two folders of one layer fails as "sideways";
#   3. the declared wiring file may call up; a call to it from below fails;
#   4. the longest declared prefix decides a file's layer;
#   5. --list counts the references per folder pair;
#   6. an object under no declared folder is an error (exit 2).
# Also checks that tests/deps/layers parses.  One line per check; exit 0 if
# all pass.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
check=$src/tests/deps/check-layers.py
cc=${CC:-cc}
failed=0
say() { # say ok|FAIL text
    echo "$1 - $2"
    [ "$1" = ok ] || failed=1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-layers-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# src FOLDER NAME C-TEXT: FOLDER/libx_a-NAME.c, which compiles to the
# object name automake gives it (FOLDER/libx_a-NAME.o, source FOLDER/NAME.c)
src() { mkdir -p "$1" && printf '%s\n' "$3" >"$1/libx_a-$2.c"; }
src low low 'int low_fn(void) { return 1; }'
src low up 'int high_fn(void); int up_fn(void) { return high_fn(); }'
src low data 'extern int high_count; int data_fn(void) { return high_count; }'
src low wire 'int high_fn(void); int wire_fn(void) { return high_fn(); }'
src low towire 'int init_fn(void); int towire_fn(void) { return init_fn(); }'
src low tosub 'int sub_fn(void); int tosub_fn(void) { return sub_fn(); }'
src low/sub sub 'int low_fn(void); int sub_fn(void) { return low_fn(); }'
src high high 'int low_fn(void); int high_count = 3; int high_fn(void) { return low_fn(); }'
src high init 'int low_fn(void); int init_fn(void) { return low_fn(); }'
src peer peer 'int high_fn(void); int peer_fn(void) { return high_fn(); }'
src other other 'int other_fn(void) { return 0; }'
for d in low low/sub high peer other; do
    (cd "$d" && "$cc" -c libx_a-*.c) || { echo "FAIL - cannot compile the objects in $d"; exit 1; }
done
layers() { printf '%s\n' "$@" >layers; }
# expect RC TEXT WHAT ARGS...: check-layers.py ARGS exits RC and prints TEXT
expect() {
    local rc=$1 text=$2 what=$3 out got
    shift 3
    out=$(python3 "$check" --layers layers "$@" 2>&1)
    got=$?
    if [ $got -eq "$rc" ] && grep -qF -- "$text" <<<"$out"; then
        say ok "$what: $(grep -F -- "$text" <<<"$out" | head -n 1)"
    else
        say FAIL "$what (exit $got, wanted $rc and '$text')"
        echo "$out"
    fi
}
o() { for n in "$@"; do printf '%s ' "$(dirname "$n")/libx_a-$(basename "$n").o"; done; }

layers low high "wiring: low/wire.c high/init.c"
expect 0 " 0 violations" "a downward call passes" $(o low/low high/high)
expect 1 "low/up.c -> high/high.c: high_fn  [low L1 -> high L2, upward]" \
    "a planted upward call fails" $(o low/low low/up high/high)
expect 1 "low/data.c -> high/high.c: high_count  [low L1 -> high L2, upward]" \
    "an upward data reference fails" $(o low/low low/data high/high)
expect 0 "1 reference from wiring files exempt" "the wiring file may call up" \
    $(o low/low low/wire high/high)
expect 1 "low/towire.c -> high/init.c: init_fn" "a call to a wiring file from below fails" \
    $(o low/low low/towire high/init)

layers low "high peer"
expect 1 "peer/peer.c -> high/high.c: high_fn  [peer L2 -> high L2, sideways]" \
    "a call between folders of one layer fails" $(o low/low high/high peer/peer)

layers low low/sub
expect 0 " 0 violations" "low/sub/sub.c belongs to low/sub, above low" $(o low/low low/sub/sub)
expect 1 "low/tosub.c -> low/sub/sub.c: sub_fn  [low L1 -> low/sub L2, upward]" \
    "a call from low into low/sub fails" $(o low/low low/tosub low/sub/sub)
expect 1 "     2       2          2  upward   low -> high" "--list counts per folder pair" \
    --list --layers <(printf 'low\nhigh\n') $(o low/low low/up low/data high/high)
expect 2 "other/other.c (other/libx_a-other.o) is under no folder" \
    "an undeclared folder is an error" $(o low/low other/other)

out=$(python3 - "$src/tests/deps/check-layers.py" "$src/tests/deps/layers" <<'EOF' 2>&1
import importlib.util, sys
spec = importlib.util.spec_from_file_location("cl", sys.argv[1])
cl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cl)
entries, wiring = cl.read_layers(sys.argv[2])
print("%d layers, %d folders, wiring %s" % (max(entries.values()), len(entries), " ".join(sorted(wiring))))
EOF
)
if [ $? -eq 0 ]; then say ok "tests/deps/layers parses: $out"; else say FAIL "tests/deps/layers: $out"; fi

[ $failed = 0 ] && echo "PASS" || echo "FAIL"
exit $failed
