#!/usr/bin/env bash
# tests/harness/copy-sources.sh SRC DEST [EXCLUDE-DIR ...]
#
# Copies the sources of the tree SRC into DEST, without build products, so
# that a test can configure its own build of them (autoconf refuses a second,
# out-of-tree build of a tree configured in place, which is how the README's
# test command and CI build).
#   - SRC a git work tree: the tracked files plus untracked, not ignored
#     source files (*.c, *.h, *.am, ...: a new file not yet added; never
#     binaries, which an in-tree build leaves untracked), plus what
#     autoreconf made in SRC when it ran there (configure, aclocal.m4, the
#     top-level *.in templates, build-aux/), with their times: the copy then
#     configures without running autoreconf again, and its Makefile remakes
#     them as in SRC when an input is newer;
#   - else SRC configured in place: `make distdir`;
#   - else the whole of SRC.
# EXCLUDE-DIR: folders (absolute, or relative to SRC) never copied, such as
# the destination itself when it lies inside SRC.
# Prints one line saying which of the three it did.  Exit 0 on success.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SRC DEST [EXCLUDE-DIR ...]" >&2; exit 2; }
src=$(cd "$1" && pwd)
dest=$2
shift 2
mkdir -p "$dest"

rel_excludes=()
for x in "$@"; do
    case $x in
    "$src"/*) rel_excludes+=("${x#"$src"/}") ;;
    /*) ;; # outside SRC: nothing to leave out
    *) rel_excludes+=("$x") ;;
    esac
done

if [ -e "$src/.git" ] && [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
    echo "sources: git ls-files of $src, and its untracked source files"
    pathspec=()
    for x in ${rel_excludes[@]+"${rel_excludes[@]}"}; do pathspec+=(":(exclude)$x"); done
    { git -C "$src" ls-files -z -- . ${pathspec[@]+"${pathspec[@]}"} &&
      git -C "$src" ls-files -z --others --exclude-standard -- '*.c' '*.h' '*.mk' '*.am' \
          '*.ac' '*.m4' '*.def' '*.manifest' '*.sh' '*.py' ${pathspec[@]+"${pathspec[@]}"}; } |
        while IFS= read -r -d '' f; do # tracked files deleted in the worktree are skipped
            if [ -e "$src/$f" ] || [ -L "$src/$f" ]; then printf '%s\0' "$f"; fi
        done | tar -C "$src" --null -T - -cf - | tar -C "$dest" -xf -
    if [ -x "$src/configure" ]; then
        git -C "$src" ls-files -z --others --ignored --exclude-standard -- \
            configure aclocal.m4 ':(glob)*.in' ':(glob)build-aux/*' |
            tar -C "$src" --null -T - -cf - | tar -C "$dest" -xf -
    fi
elif [ -f "$src/config.status" ]; then
    echo "sources: make distdir of $src (configured in place, no .git)"
    make -s --no-print-directory -C "$src" distdir distdir="$(cd "$dest" && pwd)" >/dev/null
else
    echo "sources: all of $src (no .git, not configured in place)"
    excl=(--exclude=./autom4te.cache)
    for x in ${rel_excludes[@]+"${rel_excludes[@]}"}; do excl+=("--exclude=./$x"); done
    tar -C "$src" "${excl[@]}" -cf - . | tar -C "$dest" -xf -
fi
