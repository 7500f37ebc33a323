#!/usr/bin/env bash
# tests/install/check-install.sh: the installed tree works for a real client.
#
# Copies the source tree (the files git knows, or everything after a
# distclean) to a temporary directory, configures it with
# --prefix=<temp>/prefix, runs `make install`, checks the installed files,
# then builds tests/install/client.c twice against the installed tree:
#   1. a Makefile that includes <prefix>/include/ibv-conduit/ibv-seq.mak and
#      uses $(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c and
#      $(GASNET_LD) $(GASNET_LDFLAGS) -o x x.o $(GASNET_LIBS);
#   2. pkg-config --cflags --libs gasnet-ibv-par (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig).
#   3. pkg-config --cflags --libs gasnet-ibv-parsync, likewise.
# Each binary must contain "$GASNetConduitName: IBV $" and pass when run by
# the installed bin/gasnetrun_ibv -n 4.  Then:
#   - tests/install/tools-client.c built with the installed
#     gasnet_tools-seq.mak and gasnet_tools-par.mak ($(GASNETTOOLS_CC) ...)
#     and run directly, without the launcher;
#   - tests/install/names-client.c (HAVE_PTHREAD_H, GASNETI_MAX_THREADS,
#     gasneti_mynode, its own gasnett_backtrace_user, gasnett_run_diagnostics)
#     and names-lite.c (GASNETT_LITE_MODE) built with ibv-par.mak into one
#     program: the lite object must refer to no thread-model link-check
#     symbol, and the program runs under the launcher;
#   - the link-time configuration check: client.c compiled for SEQ and
#     linked with the PAR library must fail to link, naming the thread model;
#   - tests/surface/check-surface.sh (when present) for each installed .mak
#     (seq, par, parsync), each .pc, and --tools for gasnet_tools-{seq,par}.mak.
# Prints "check-install: PASS" and exits 0, or prints the failing step with
# its log and exits 1.
# Run by the test harness (manifest line "install"); also runnable by hand.
# Environment: TEST_SRCDIR (source tree; default: two levels up),
# KEEP_INSTALL_TMP=1 keeps the temporary directory, CHECK_INSTALL_CONFIGURE_ARGS
# extra configure arguments (e.g. --without-mpi: the fragments then link with
# plain cc and no mpi spawner; by default they use mpicc when MPI is found).
set -euo pipefail

srcdir=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
nprocs=4
work=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-ibv-install.XXXXXX")
prefix=$work/prefix
name=check-install
keep=${KEEP_INSTALL_TMP:-0}
ok=0
# shellcheck source=tests/install/common.sh
. "$srcdir/tests/install/common.sh"
trap cleanup EXIT

# 1. A clean copy of the source tree.
step "copying $srcdir"
"$srcdir/tests/harness/copy-sources.sh" "$srcdir" "$work/src" >/dev/null ||
    fail "could not copy the sources of $srcdir"
[ -f "$work/src/configure.ac" ] || fail "no configure.ac in the copy of $srcdir"

# 2. Configure, build and install into the temporary prefix.
step "autoreconf, configure --prefix=$prefix ${CHECK_INSTALL_CONFIGURE_ARGS:-}, make install"
cd "$work/src"
# The copy carries the source tree's autoreconf output when it has one
# (copy-sources.sh); a tree never bootstrapped is bootstrapped here.
[ -x configure ] || run "$work/autoreconf.log" autoreconf -fi
# shellcheck disable=SC2086 # a word list
run "$work/configure.log" ./configure --prefix="$prefix" ${CHECK_INSTALL_CONFIGURE_ARGS:-}
run "$work/make.log" make -j2
run "$work/install.log" make install

# 3. The installed compatibility contract (ARCHITECTURE.md section 2).
for f in include/gasnetex.h include/gasnet.h include/gasnet_fwd.h include/gasnet_config.h \
    include/gasnet_tools.h include/gasnet_linkcheck.h bin/gasnetrun_ibv \
    include/ibv-conduit/ibv-seq.mak include/ibv-conduit/ibv-par.mak \
    include/ibv-conduit/ibv-parsync.mak lib/libgasnet-ibv-seq.a lib/libgasnet-ibv-par.a \
    lib/libgasnet-ibv-parsync.a lib/pkgconfig/gasnet-ibv-seq.pc lib/pkgconfig/gasnet-ibv-par.pc \
    lib/pkgconfig/gasnet-ibv-parsync.pc include/gasnet_tools-seq.mak include/gasnet_tools-par.mak \
    lib/libgasnet_tools-seq.a lib/libgasnet_tools-par.a lib/pkgconfig/gasnet_tools-seq.pc \
    lib/pkgconfig/gasnet_tools-par.pc; do
    [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"
done
grep -q '^#define GASNET_RELEASE_VERSION_MAJOR [0-9]' "$prefix/include/gasnet_config.h" ||
    fail "gasnet_config.h lacks a literal GASNET_RELEASE_VERSION_MAJOR define"

# 4. Client built with the makefile fragment.
step "building the client with ibv-seq.mak"
mkdir -p "$work/mak"
cat >"$work/mak/Makefile" <<EOF
include $prefix/include/ibv-conduit/ibv-seq.mak
client: client.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o client client.o \$(GASNET_LIBS)
client.o: $srcdir/tests/install/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o client.o $srcdir/tests/install/client.c
EOF
run "$work/mak/build.log" make -C "$work/mak"

# 5. Client built with pkg-config (PAR and PARSYNC), linked with GASNET_LD.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
for mode in par parsync; do
    step "building the client with pkg-config gasnet-ibv-$mode"
    mkdir -p "$work/pc-$mode"
    run "$work/pc-$mode/pkg-config.log" pkg-config --exists --print-errors gasnet-ibv-$mode
    cc=$(pkg-config --variable=GASNET_CC gasnet-ibv-$mode 2>/dev/null || true)
    ld=$(pkg-config --variable=GASNET_LD gasnet-ibv-$mode 2>/dev/null || true)
    [ -n "$cc" ] || fail "gasnet-ibv-$mode.pc has no GASNET_CC variable"
    [ -n "$ld" ] || fail "gasnet-ibv-$mode.pc has no GASNET_LD variable"
    # shellcheck disable=SC2046,SC2086 # flags and the compiler command are word lists
    run "$work/pc-$mode/build.log" $cc $(pkg-config --cflags gasnet-ibv-$mode) -c \
        -o "$work/pc-$mode/client.o" "$srcdir/tests/install/client.c"
    # shellcheck disable=SC2046,SC2086
    run "$work/pc-$mode/link.log" $ld -o "$work/pc-$mode/client" "$work/pc-$mode/client.o" \
        $(pkg-config --libs gasnet-ibv-$mode)
done

# 6. Ident string and a real run of each under the installed launcher.
for bin in "$work/mak/client" "$work/pc-par/client" "$work/pc-parsync/client"; do
    # shellcheck disable=SC2016 # a literal dollar sign
    grep -qaF -- '$GASNetConduitName: IBV $' "$bin" ||
        fail "$bin lacks the ident string \$GASNetConduitName: IBV \$"
    step "running $bin on $nprocs processes"
    out=$bin.out
    if ! timeout --kill-after=5 60 "$prefix/bin/gasnetrun_ibv" -n $nprocs "$bin" \
        </dev/null >"$out" 2>&1; then
        fail "gasnetrun_ibv -n $nprocs $bin failed" "$out"
    fi
    grep -q "client: PASS on $nprocs processes" "$out" || fail "$bin did not report PASS" "$out"
done

# 7. Tools-only clients: gasnet_tools-{seq,par}.mak, run with no launcher.
for mode in seq par; do
    step "building and running the tools-only client with gasnet_tools-$mode.mak"
    mkdir -p "$work/tools-$mode"
    cat >"$work/tools-$mode/Makefile" <<EOF
include $prefix/include/gasnet_tools-$mode.mak
tools-client: $srcdir/tests/install/tools-client.c
	\$(GASNETTOOLS_CC) \$(GASNETTOOLS_CPPFLAGS) \$(GASNETTOOLS_CFLAGS) -c -o tools-client.o $srcdir/tests/install/tools-client.c
	\$(GASNETTOOLS_LD) \$(GASNETTOOLS_LDFLAGS) -o tools-client tools-client.o \$(GASNETTOOLS_LIBS)
EOF
    run "$work/tools-$mode/build.log" make -C "$work/tools-$mode"
    out=$work/tools-$mode/run.out
    timeout 30 "$work/tools-$mode/tools-client" >"$out" 2>&1 </dev/null ||
        fail "tools-client ($mode) failed" "$out"
    want=$(echo "$mode" | tr '[:lower:]' '[:upper:]')
    grep -q "tools-client: PASS $want" "$out" || fail "tools-client ($mode) did not report PASS $want" "$out"
done

# 8. GASNet's unprefixed names and a tools-lite object in a PAR program.
step "building names-client and a GASNETT_LITE_MODE object with ibv-par.mak"
names=$work/names
mkdir -p "$names"
cat >"$names/Makefile" <<EOF
include $prefix/include/ibv-conduit/ibv-par.mak
names-client: names-client.o names-lite.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o names-client names-client.o names-lite.o \$(GASNET_LIBS)
%.o: $srcdir/tests/install/%.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o \$@ \$<
EOF
run "$names/build.log" make -C "$names"
run "$names/nm.log" nm "$names/names-lite.o"
if grep -E "gasnett_linkconfig_idiotcheck_(SEQ|PAR|PARSYNC)|gasneti_linkcheck_THREADMODEL" \
    "$names/nm.log" >"$names/model.log"; then
    fail "names-lite.o (GASNETT_LITE_MODE) refers to a thread-model link-check symbol" \
        "$names/model.log"
fi
step "running names-client on $nprocs processes"
if ! timeout --kill-after=5 60 "$prefix/bin/gasnetrun_ibv" -n $nprocs "$names/names-client" \
    </dev/null >"$names/run.out" 2>&1; then
    fail "gasnetrun_ibv -n $nprocs names-client failed" "$names/run.out"
fi
grep -q "names-client: PASS on $nprocs processes" "$names/run.out" ||
    fail "names-client did not report PASS" "$names/run.out"

# 9. Link-time configuration check: a SEQ object with the PAR library.
step "linking a SEQ-compiled client with the PAR library (must fail)"
mix=$work/mix
mkdir -p "$mix"
cat >"$mix/Makefile" <<EOF
include $prefix/include/ibv-conduit/ibv-par.mak
client-mix: $work/mak/client.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o client-mix $work/mak/client.o \$(GASNET_LIBS)
EOF
if make -C "$mix" >"$mix/link.log" 2>&1; then
    fail "a SEQ object linked with libgasnet-ibv-par.a without error" "$mix/link.log"
fi
grep -q "gasneti_linkcheck_THREADMODEL_SEQ" "$mix/link.log" ||
    fail "the failed link does not name the thread model (gasneti_linkcheck_THREADMODEL_SEQ)" "$mix/link.log"
step "  the linker said: $(grep -m1 -o "undefined reference to .gasneti_linkcheck_[A-Z_]*" "$mix/link.log")"

# 10. The public-name surface test through each installed fragment and .pc
#    (when the surface test is present in this tree).
surface=$srcdir/tests/surface/check-surface.sh
# fragment_vars FILE VAR...: VAR=value lines, as make expands them in FILE.
fragment_vars() {
    local file=$1
    shift
    make -s --no-print-directory -f "$srcdir/contrib/echovars.mk" FRAGMENT="$file" VARS="$*" echovars
}
# pick LINES VAR: the value of VAR in fragment_vars output.
pick() { printf '%s\n' "$1" | sed -n "s/^$2=//p"; }
if [ -x "$surface" ]; then
    for mode in seq par parsync; do
        step "surface test with ibv-$mode.mak and gasnet-ibv-$mode.pc"
        v=$(fragment_vars "$prefix/include/ibv-conduit/ibv-$mode.mak" GASNET_CC GASNET_CPPFLAGS \
            GASNET_CFLAGS GASNET_LD GASNET_LDFLAGS GASNET_LIBS)
        run "$work/surface-mak-$mode.log" "$surface" --cc "$(pick "$v" GASNET_CC)" \
            --cflags "$(pick "$v" GASNET_CPPFLAGS) $(pick "$v" GASNET_CFLAGS)" \
            --ld "$(pick "$v" GASNET_LD)" --libs "$(pick "$v" GASNET_LDFLAGS) $(pick "$v" GASNET_LIBS)"
        run "$work/surface-pc-$mode.log" "$surface" \
            --cc "$(pkg-config --variable=GASNET_CC gasnet-ibv-$mode)" \
            --cflags "$(pkg-config --cflags gasnet-ibv-$mode)" \
            --ld "$(pkg-config --variable=GASNET_LD gasnet-ibv-$mode)" \
            --libs "$(pkg-config --libs gasnet-ibv-$mode)"
    done
    for mode in seq par; do
        step "surface test (tools) with gasnet_tools-$mode.mak"
        v=$(fragment_vars "$prefix/include/gasnet_tools-$mode.mak" GASNETTOOLS_CC \
            GASNETTOOLS_CPPFLAGS GASNETTOOLS_CFLAGS GASNETTOOLS_LD GASNETTOOLS_LDFLAGS GASNETTOOLS_LIBS)
        run "$work/surface-tools-$mode.log" "$surface" --tools --cc "$(pick "$v" GASNETTOOLS_CC)" \
            --cflags "$(pick "$v" GASNETTOOLS_CPPFLAGS) $(pick "$v" GASNETTOOLS_CFLAGS)" \
            --ld "$(pick "$v" GASNETTOOLS_LD)" \
            --libs "$(pick "$v" GASNETTOOLS_LDFLAGS) $(pick "$v" GASNETTOOLS_LIBS)"
    done
else
    step "surface test not in this tree ($surface): skipped"
fi

ok=1
step "PASS"
