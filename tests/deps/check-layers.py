#!/usr/bin/env python3
"""tests/deps/check-layers.py: the library's objects reference only downward.

    check-layers.py [--layers FILE] [--builddir DIR] [--list [--symbols]] OBJECT.o...

Reads the layer order (tests/deps/layers: one line per layer, lowest first,
the folders in it, and the wiring files), runs `nm` once over the given
object files and, for every undefined symbol of an object that another
given object defines, checks that the definer's folder may be referenced
from the referrer's: its own folder entry or an entry of a lower layer.
Every other reference is a violation, "upward" (to a higher layer) or
"sideways" (to another entry of the same layer); references made by a
wiring file are exempt.

Objects are named by their build-tree path, as automake writes them with
subdir-objects (core/ibv/libgasnet_ibv_seq_a-send.o is core/ibv/send.c);
pass the .o files, not the archive, whose members lose their folders.

Default output: one line per violation,
    FROM_FILE -> TO_FILE: symbol  [FROM_ENTRY Ln -> TO_ENTRY Lm, upward]
sorted by folder pair, then a summary.  --list prints instead the count of
violating references per folder pair (--symbols adds each symbol with the
files that reference it).  Exit 0 when there is none, 1 when there are, 2 on
bad usage, an unreadable layers file or an object under no declared folder.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# nm -P types: strong and weak definitions of global symbols, undefined ones.
STRONG = set("TDBRCGSiu")
WEAK = set("WV")
UNDEF = set("Uwv")
# automake's per-target object prefix: libgasnet_ibv_seq_a-send.o
PREFIX_RE = re.compile(r"^[A-Za-z0-9_]+_(?:a|la)-")


def die(msg):
    print("check-layers: " + msg, file=sys.stderr)
    sys.exit(2)


def read_layers(path):
    """Return ({folder entry: layer index}, set of wiring files)."""
    entries, wiring = {}, set()
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    layer = 0
    for n, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("wiring:"):
            wiring.update(w.strip("/") for w in line[len("wiring:"):].split())
            continue
        layer += 1
        for folder in line.split():
            folder = folder.strip("/")
            if folder in entries:
                die("%s:%d: folder %s declared twice" % (path, n, folder))
            entries[folder] = layer
    if not entries:
        die("%s declares no layer" % path)
    return entries, wiring


def source_of(obj, builddir):
    """core/ibv/libgasnet_ibv_seq_a-send.o -> core/ibv/send.c"""
    rel = os.path.relpath(os.path.abspath(obj), builddir)
    folder, base = os.path.split(rel)
    base = PREFIX_RE.sub("", base)
    if base.endswith(".o"):
        base = base[:-2] + ".c"
    return os.path.join(folder, base) if folder else base


def entry_of(path, entries):
    """The longest declared folder that holds path, or None."""
    best = None
    for e in entries:
        if path.startswith(e + "/") and (best is None or len(e) > len(best)):
            best = e
    return best


def read_symbols(objects, nm):
    """Run nm once: ({object: set of undefined}, {symbol: [strong definers]},
    {symbol: [weak definers]})."""
    try:
        out = subprocess.run([nm, "-A", "-P"] + objects, capture_output=True, text=True)
    except OSError as e:
        die("cannot run %s: %s" % (nm, e))
    if out.returncode != 0:
        die("%s failed: %s" % (nm, out.stderr.strip()))
    undef = collections.defaultdict(set)
    strong = collections.defaultdict(list)
    weak = collections.defaultdict(list)
    for line in out.stdout.splitlines():
        obj, sep, rest = line.partition(": ")
        fields = rest.split()
        if not sep or len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in UNDEF:
            undef[obj].add(name)
        elif kind in STRONG:
            strong[name].append(obj)
        elif kind in WEAK:
            weak[name].append(obj)
    return undef, strong, weak


def find_violations(objects, entries, wiring, builddir, nm):
    """Return (violations, exempt count); a violation is a tuple
    (from_file, to_file, symbol, from_entry, to_entry, kind)."""
    src = {o: source_of(o, builddir) for o in objects}
    ent = {}
    for o, s in src.items():
        ent[o] = entry_of(s, entries)
        if ent[o] is None:
            die("%s (%s) is under no folder of the layers file; declare its folder"
                % (s, o))
    for w in sorted(wiring - set(src.values())):
        print("check-layers: note: wiring file %s is not among the objects" % w,
              file=sys.stderr)
    undef, strong, weak = read_symbols(objects, nm)
    violations, exempt = [], 0
    for o in objects:
        here = ent[o]
        for name in undef.get(o, ()):
            for d in strong.get(name) or weak.get(name) or ():
                there = ent[d]
                if there == here or entries[there] < entries[here]:
                    continue
                if src[o] in wiring:
                    exempt += 1
                    continue
                kind = "upward" if entries[there] > entries[here] else "sideways"
                violations.append((src[o], src[d], name, here, there, kind))
    return violations, exempt


def count(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def folder_pair(v):
    return os.path.dirname(v[0]), os.path.dirname(v[1])


def print_lines(violations, entries):
    for v in sorted(violations, key=lambda v: (folder_pair(v), v[0], v[1], v[2])):
        print("%s -> %s: %s  [%s L%d -> %s L%d, %s]"
              % (v[0], v[1], v[2], v[3], entries[v[3]], v[4], entries[v[4]], v[5]))


def print_list(violations, symbols):
    pairs = collections.defaultdict(list)
    for v in violations:
        pairs[folder_pair(v)].append(v)
    order = sorted(pairs, key=lambda p: (-len(pairs[p]), p))
    print("%6s %7s %10s  %-8s %s" % ("refs", "symbols", "file-pairs", "kind", "from -> to"))
    for p in order:
        vs = pairs[p]
        print("%6d %7d %10d  %-8s %s -> %s"
              % (len(vs), len({v[2] for v in vs}), len({(v[0], v[1]) for v in vs}),
                 vs[0][5], p[0], p[1]))
        if symbols:
            by_sym = collections.defaultdict(set)
            for v in vs:
                by_sym[(v[2], v[1])].add(os.path.basename(v[0]))
            for (name, to), froms in sorted(by_sym.items(),
                                            key=lambda kv: (-len(kv[1]), kv[0])):
                print("          %s (%s) <- %s" % (name, to, " ".join(sorted(froms))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", default=os.path.join(HERE, "layers"),
                    help="layer order file (default: tests/deps/layers)")
    ap.add_argument("--builddir", default=".",
                    help="directory the object paths are relative to (default: .)")
    ap.add_argument("--nm", default=os.environ.get("NM") or "nm")
    ap.add_argument("--list", action="store_true",
                    help="count the violations per folder pair instead of listing them")
    ap.add_argument("--symbols", action="store_true",
                    help="with --list: each symbol and the files referencing it")
    ap.add_argument("objects", nargs="+", metavar="OBJECT.o")
    args = ap.parse_args()
    for o in args.objects:
        if not o.endswith(".o"):
            die("%s: pass object files (an archive's members lose their folders)" % o)
    entries, wiring = read_layers(args.layers)
    builddir = os.path.abspath(args.builddir)
    violations, exempt = find_violations(args.objects, entries, wiring, builddir, args.nm)
    if args.list:
        print_list(violations, args.symbols)
    else:
        print_lines(violations, entries)
    kinds = collections.Counter(v[5] for v in violations)
    pairs = {folder_pair(v) for v in violations}
    print("check-layers: %s, %s (%d upward, %d sideways) in %s; %s from wiring files exempt"
          % (count(len(args.objects), "object"), count(len(violations), "violation"),
             kinds["upward"], kinds["sideways"], count(len(pairs), "folder pair"),
             count(exempt, "reference")))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
