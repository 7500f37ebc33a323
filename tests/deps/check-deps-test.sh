#!/usr/bin/env bash
# tests/deps/check-deps-test.sh: the install list is complete.
#
# 1. contrib/check-deps.py on this source tree: every command its scripts,
#    Makefile rules and tests run comes from a package contrib/install-deps.sh
#    installs, or is a base-system tool.
# 2. The check can fail: on a throw-away tree whose script runs `xz` while
#    its install list holds only `make`, it must fail and name xz and its
#    package xz-utils; with xz-utils listed it passes; an absent command
#    fails; an absent command used only after `command -v` passes.
# One line per check; exit 0 if all pass, 77 (SKIP) off Debian.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
check=$src/contrib/check-deps.py
command -v dpkg >/dev/null 2>&1 || { echo "SKIP: no dpkg (the check knows Debian packages)"; exit 77; }
failed=0
say() { # say OK|FAIL text
    echo "$1 - $2"
    [ "$1" = ok ] || failed=1
}

out=$(python3 "$check" --root "$src" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then say ok "this tree: $(tail -n 1 <<<"$out")"; else say FAIL "this tree:"; echo "$out"; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-deps-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/contrib" "$tmp/tests"
list() { printf '#!/bin/sh\npackages=(\n    %s\n)\n' "$*" >"$tmp/contrib/install-deps.sh"; }
run() { python3 "$check" --root "$tmp" 2>&1; }

if command -v xz >/dev/null 2>&1; then
    printf '#!/bin/sh\nset -e\nxz --version | head -n 1\n' >"$tmp/tests/uses-xz.sh"
    list make
    out=$(run); rc=$?
    if [ $rc -eq 1 ] && grep -q "'xz' (run by tests/uses-xz.sh) comes from package xz-utils" <<<"$out"; then
        say ok "a script running xz fails when xz-utils is not listed: $(head -n 1 <<<"$out")"
    else
        say FAIL "xz without xz-utils listed (exit $rc)"; echo "$out"
    fi
    list make xz-utils
    out=$(run); rc=$?
    [ $rc -eq 0 ] && say ok "... and passes with xz-utils listed" || { say FAIL "xz-utils listed (exit $rc)"; echo "$out"; }
    rm -f "$tmp/tests/uses-xz.sh"
else
    echo "SKIP - xz is not installed (contrib/install-deps.sh installs xz-utils)"
fi

printf '#!/bin/sh\ngasnet-no-such-tool --now\n' >"$tmp/tests/absent.sh"
list make
out=$(run); rc=$?
if [ $rc -eq 1 ] && grep -q "'gasnet-no-such-tool' (run by tests/absent.sh) is not installed" <<<"$out"; then
    say ok "a command no package provides fails"
else
    say FAIL "absent command (exit $rc)"; echo "$out"
fi
printf '#!/bin/sh\nif command -v gasnet-no-such-tool >/dev/null; then gasnet-no-such-tool --now; fi\n' \
    >"$tmp/tests/absent.sh"
out=$(run); rc=$?
[ $rc -eq 0 ] && say ok "a command used only after 'command -v' is optional" ||
    { say FAIL "guarded command (exit $rc)"; echo "$out"; }

[ $failed = 0 ] && echo "PASS" || echo "FAIL"
exit $failed
