#!/usr/bin/env python3
"""contrib/check-deps.py: every external command the repo runs must come from
a package contrib/install-deps.sh installs, or be a base-system tool.

    contrib/check-deps.py [--root DIR] [--install-deps FILE] [--list]

Finds the commands that the repo's shell scripts, Makefile rules (*.mk,
Makefile.am recipes), Python scripts (subprocess argument lists) and C tests
(exec*/popen/system with a literal name) start, then for each one that is
not a shell builtin, a function of the script, a program or script of the
repo itself, or in BASE_TOOLS below:

  - finds it in PATH (plus /usr/sbin, /sbin),
  - asks dpkg -S which package holds it,
  - fails, naming the command, the file that runs it and the package, when
    that package is not in the packages=( ... ) list of install-deps.sh.

Python scripts' imports are checked the same way: a module that is neither
in Python's standard library nor a .py file of the repo must be in
PY_MODULES (module -> Debian package), and that package in the list.

A command a script only runs after testing for it (`command -v NAME`,
`type NAME`, `which NAME`) is optional and not required.  Scripts that run
inside the Soft-RoCE guest (GUEST_FILES) may also use busybox applets
(busybox-static is in the list).  --list prints every command found with its
verdict.  Exit 0 when all are provided, 1 otherwise, 2 on bad usage.

Limits (a heuristic, not a shell parser): words built at run time ("$cmd")
are not seen; heredoc bodies are skipped; in C only exec*/popen/system calls
with a literal first argument count.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

# Base-system tools: Debian 12's Essential/required packages (coreutils,
# bash, dash, grep, sed, findutils, diffutils, gzip, tar, mawk, util-linux,
# hostname, debianutils, dpkg, libc-bin, perl-base, login, ncurses-bin, apt) and
# git, which the bare machine needs to get the repo at all.
BASE_TOOLS = set("""
sh bash dash env cat cp mv rm ln ls mkdir rmdir touch chmod chown stat readlink realpath
dirname basename pwd echo printf test true false sleep date head tail cut tr sort uniq wc
tee seq od xxd expr id uname nproc mktemp sync du df yes timeout nice nohup stdbuf split
comm paste join fold fmt sum md5sum sha256sum cksum install dd truncate shuf numfmt tac
kill grep egrep fgrep sed find xargs diff cmp gzip gunzip zcat tar awk mawk
mount umount setsid unshare getopt flock logger more hostname which run-parts dpkg dpkg-query
ldd getent ldconfig perl clear tput tset git apt-get apt-cache dpkg-deb
""".split())

SHELL_WORDS = set("""
if then else elif fi case esac for while until do done in function select time
! { } [ [[ ]] : . source alias bg bind break builtin caller cd command compgen complete
continue declare dirs disown echo enable eval exec exit export fc fg getopts hash help
history jobs let local logout mapfile popd printf pushd pwd read readarray readonly return
set shift shopt suspend test times trap type typeset ulimit umask unalias unset wait
""".split())

# Words after which the next word is again a command.
PREFIX_COMMANDS = {"exec", "command", "env", "nice", "nohup", "setsid", "timeout", "sudo",
                   "xargs", "time", "stdbuf", "builtin"}

# Python modules outside the standard library -> the Debian package with them.
PY_MODULES = {"matplotlib": "python3-matplotlib"}

GUEST_FILES = {"tests/softroce/guest-init.sh", "tests/softroce/initramfs-init",
               "tests/softroce/run-verbs-tests", "tests/softroce/rail-traffic.sh"}

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")


def git_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        return [f for f in out.splitlines() if f]
    except (OSError, subprocess.SubprocessError):
        files = []
        for d, _, names in os.walk(root):
            if "/.git" in d or d.endswith(".git"):
                continue
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def strip_heredocs(text):
    """Drops heredoc bodies (data, or text for another program)."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = re.search(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?", line)
        i += 1
        if m and not re.search(r"<<<", line):
            end = m.group(1)
            while i < len(lines) and lines[i].strip() != end:
                i += 1
            i += 1
    return "\n".join(out)


OPERATORS = ["((", "))", ";;", "&&", "||", ">>", "<<", ">&", "<&", "&>", "|&", ";", "&", "|", "(",
             ")", "<", ">", "\n"]
SEPARATORS = {";", "|", "||", "&&", "&", "(", ";;", "|&", "\n", "{", "!", "then", "do", "else",
              "elif", "if", "while", "until"}
REDIRECTS = {">", "<", ">>", "<<", ">&", "<&", "&>"}


def shell_tokens(text):
    """Words and operators of a shell text (newline is an operator)."""
    lex = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        raw = list(lex)
    except ValueError:  # unbalanced quote: fall back to blanks
        raw = text.split()
    for t in raw:
        if t and all(ch in "();<>|&\n" for ch in t):
            while t:
                op = next(o for o in OPERATORS if t.startswith(o)) if any(
                    t.startswith(o) for o in OPERATORS) else t[0]
                yield op
                t = t[len(op):]
        else:
            yield t


def shell_commands(text):
    """(command, optional) pairs of a shell text."""
    text = strip_heredocs(text.replace("\\\n", " "))
    found = []
    optional = set(re.findall(r"(?:command\s+-v|\btype\s+(?:-[pP]\s+)?|\bwhich)\s+([A-Za-z_][\w.+-]*)",
                              text))
    # $( ) and ` ` anywhere in a word: scanned in the text without comment
    # lines and single-quoted strings (awk programs, printf formats).
    bare = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    bare = re.sub(r"'[^']*'", "''", bare)
    for m in re.finditer(r"\$\((?!\()\s*([A-Za-z_][\w.+-]*)", bare):
        found.append(m.group(1))
    for m in re.finditer(r"`\s*([A-Za-z_][\w.+-]*)[^`]*`", bare):
        found.append(m.group(1))
    toks = list(shell_tokens(text.replace("`", " ( ")))
    at_start, skip_to, case_pat, expect_in, skip_next = True, None, False, 0, False
    for i, t in enumerate(toks):
        if skip_to is not None:  # [[ ]], (( )), name=( ... ), for/select words
            if t in skip_to:
                skip_to = None
                at_start = t in SEPARATORS
            continue
        if case_pat:  # the pattern of a case arm, up to ')'
            if t == ")":
                case_pat, at_start = False, True
            elif t == "esac":
                case_pat, at_start = False, False
            continue
        if skip_next:
            skip_next = False
            continue
        if t == "case":
            expect_in += 1
            at_start = False
            continue
        if t == "in" and expect_in:
            expect_in -= 1
            case_pat = True
            continue
        if t == ";;":
            case_pat = True
            continue
        if t == "[[":
            skip_to = {"]]"}
            continue
        if t == "((":
            skip_to = {"))"}
            continue
        if t in ("for", "select"):
            skip_to = {";", "\n", "do"}
            continue
        if t.endswith("=") and i + 1 < len(toks) and toks[i + 1] == "(":
            skip_to = {")"}
            continue
        if t in SEPARATORS:
            at_start = True
            continue
        if t in REDIRECTS:
            skip_next = True
            continue
        if t in (")", "}"):
            continue
        if not at_start:
            continue
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=", t):
            continue  # assignment before the command
        if t in PREFIX_COMMANDS:
            found.append(t)
            continue  # the next plain word is the command (options skipped below)
        if t.startswith("-") or re.match(r"^[0-9.]+[smhd]?$", t):
            continue  # options or durations of a prefix command, fd numbers
        at_start = False
        found.append(t)
    # UPPER_CASE words are variables (make's $(VAR), awk's NF), not commands
    return [(c, c in optional) for c in found
            if c not in SHELL_WORDS and NAME_RE.match(c) and not re.match(r"^[A-Z_][A-Z0-9_]*$", c)
            and "MAKEVAR" not in c]


def shell_functions(text):
    names = set(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
    names.update(re.findall(r"^\s*function\s+([A-Za-z_][\w-]*)", text, re.M))
    return names


MAKE_FUNCTIONS = ("foreach|strip|subst|patsubst|findstring|filter|filter-out|sort|word|words|"
                  "wordlist|firstword|lastword|dir|notdir|suffix|basename|addsuffix|addprefix|"
                  "join|wildcard|realpath|abspath|if|or|and|call|value|eval|origin|flavor|"
                  "error|warning|info")


def make_recipes(text):
    """The shell text of the recipe lines of a Makefile fragment."""
    out = []
    for line in text.replace("\\\n", " ").split("\n"):
        if not line.startswith("\t"):
            continue
        line = line.lstrip("\t").lstrip("@-+")
        # make's own functions ($(foreach ...), $(strip ...)) are not commands
        line = re.sub(r"\$\((?:" + MAKE_FUNCTIONS + r")\s", "MAKEFN(", line)
        line = re.sub(r"\$\([A-Za-z_][A-Za-z0-9_]*\)|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[@<^*?]",
                      "MAKEVAR", line)
        out.append(line.replace("$$", "$"))
    return "\n".join(out)


def python_commands(text):
    return [(m.group(1), False) for m in
            re.finditer(r"subprocess\.\w+\(\s*\[\s*[\"']([\w.+-]+)[\"']", text)]


def python_imports(text):
    """Top-level module names a Python file imports (anywhere in it)."""
    pat = (r"^[ \t]*(?:import[ \t]+([A-Za-z_]\w*)[ \t]*(?=$|,|\.|as\b|#)"
           r"|from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b)")
    return {m.group(1) or m.group(2) for m in re.finditer(pat, text, re.M)}


def python_import_problems(root, files, packages):
    """One message per imported module no listed package provides."""
    stdlib = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    own = {os.path.basename(f)[:-3] for f in files if f.endswith(".py")}
    bad = []
    for f in files:
        if not f.endswith(".py"):
            continue
        try:
            text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for mod in sorted(python_imports(text) - own):
            if mod in stdlib or mod == "__future__":
                continue
            pkg = PY_MODULES.get(mod)
            if pkg is None:
                bad.append("check-deps: Python module '%s' (imported by %s) is not in the "
                           "standard library: add it with its Debian package to PY_MODULES and "
                           "contrib/install-deps.sh, or stop using it" % (mod, f))
            elif pkg not in packages:
                bad.append("check-deps: Python module '%s' (imported by %s) comes from package "
                           "%s, which contrib/install-deps.sh does not install" % (mod, f, pkg))
    return bad


def c_commands(text):
    pat = r"\b(?:exec[lv]p?e?|popen|system)\s*\(\s*\"(?:/usr)?(?:/s?bin/)?([\w.+-]+)"
    return [(m.group(1), False) for m in re.finditer(pat, text)]


def listed_packages(install_deps):
    text = open(install_deps, encoding="utf-8").read()
    m = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    if not m:
        sys.exit("check-deps: no packages=( ... ) list in %s" % install_deps)
    body = re.sub(r"#[^\n]*", "", m.group(1))
    return set(body.split())


def with_depends(packages):
    """The listed packages and their direct dependencies (which installing
    them guarantees: pkg-config -> pkgconf, python3 -> python3-minimal)."""
    out = set(packages)
    try:
        text = subprocess.run(["dpkg-query", "-W", "-f=${Pre-Depends},${Depends}\\n"] + sorted(packages),
                              capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    for alt in re.split(r"[,\n]", text):
        name = alt.split("|")[0].strip().split(" ")[0].split(":")[0]
        if name:
            out.add(name)
    return out


def owners(paths):
    """dpkg -S for each path (also its /usr-merged twin and real path), in
    one dpkg call."""
    cands = {}
    for p in paths:
        c = {p, os.path.realpath(p)}
        for x in list(c):
            c.add(x[4:] if x.startswith("/usr/") else "/usr" + x)
        cands[p] = c
    every = sorted(set().union(*cands.values())) if cands else []
    who = {}
    if every:
        try:
            out = subprocess.run(["dpkg", "-S"] + every, capture_output=True, text=True,
                                 timeout=120).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            if ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            who.setdefault(path.strip(), set()).update(
                x.strip().split(":")[0] for x in pkgs.split(","))
    return {p: set().union(*(who.get(x, set()) for x in c)) for p, c in cands.items()}


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    install_deps = None
    show = False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root" and args:
            root = args.pop(0)
        elif a == "--install-deps" and args:
            install_deps = args.pop(0)
        elif a == "--list":
            show = True
        else:
            print("usage: check-deps.py [--root DIR] [--install-deps FILE] [--list]",
                  file=sys.stderr)
            return 2
    install_deps = install_deps or os.path.join(root, "contrib/install-deps.sh")
    packages = listed_packages(install_deps)
    files = git_files(root)
    repo_names = {os.path.basename(f) for f in files}
    for f in files:
        if f.endswith(".mk") or f.endswith("Makefile.am"):
            text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
            for m in re.finditer(r"^\s*\w*PROGRAMS\s*\+?=((?:.*\\\n)*.*)", text, re.M):
                repo_names.update(os.path.basename(w) for w in m.group(1).replace("\\", " ").split())
    try:
        applets = set(subprocess.run(["busybox", "--list"], capture_output=True, text=True,
                                     timeout=30).stdout.split())
    except (OSError, subprocess.SubprocessError):
        applets = set()

    uses = {}  # command -> {"files": set, "optional": bool, "guest": bool}
    funcs = set()  # shell functions defined anywhere (scripts source each other)
    for f in files:
        path = os.path.join(root, f)
        if not os.path.isfile(path) or f.startswith(".git"):
            continue
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        first = text.split("\n", 1)[0]
        if f.endswith(".mk") or f.endswith("Makefile.am"):
            cmds = shell_commands(make_recipes(text))
        elif f.endswith(".py") or (first.startswith("#!") and "python" in first):
            cmds = python_commands(text)
        elif f.endswith(".sh") or (first.startswith("#!") and re.search(r"\b(ba|da)?sh\b", first)) \
                or f in (".ci/run",):
            cmds = shell_commands(text)
            funcs |= shell_functions(text)
        elif f.endswith(".c"):
            cmds = c_commands(text)
        else:
            continue
        for c, opt in cmds:
            u = uses.setdefault(c, {"files": set(), "optional": True, "guest": True})
            u["files"].add(f)
            u["optional"] = u["optional"] and opt
            u["guest"] = u["guest"] and f in GUEST_FILES

    # Debian's standard PATH, not this shell's (a user's own tools do not count)
    search = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    need = {}
    verdict = {}
    for c, u in sorted(uses.items()):
        if c in funcs:
            continue
        if c in repo_names or c == "MAKEVAR":
            verdict[c] = "repo"
        elif c in BASE_TOOLS:
            verdict[c] = "base"
        elif u["guest"] and c in applets:
            verdict[c] = "busybox-static (guest)"
        else:
            p = shutil.which(c, path=search)
            if p:
                need[c] = p
            else:
                verdict[c] = "optional, absent" if u["optional"] else None
    own = owners(sorted(set(need.values())))
    provided = with_depends(packages)
    for c, p in need.items():
        pk = own.get(p, set())
        hit = sorted(pk & packages) or sorted(pk & provided)
        if hit:
            verdict[c] = hit[0]
        elif uses[c]["optional"]:
            verdict[c] = "optional (%s)" % (",".join(sorted(pk)) or p)
        else:
            verdict[c] = ("not listed", sorted(pk), p)

    bad = 0
    for msg in python_import_problems(root, files, packages):
        bad += 1
        print(msg)
    for c in sorted(uses):
        if c not in verdict:
            continue  # a shell function
        v = verdict[c]
        where = ", ".join(sorted(uses[c]["files"])[:3])
        if v is None:
            bad += 1
            print("check-deps: '%s' (run by %s) is not installed and not a base tool: add its "
                  "package to contrib/install-deps.sh or stop using it" % (c, where))
        elif isinstance(v, tuple):
            bad += 1
            print("check-deps: '%s' (run by %s) comes from package %s, which contrib/"
                  "install-deps.sh does not install: add it there or stop using it"
                  % (c, where, ",".join(v[1]) or "(none: %s)" % v[2]))
        elif show:
            print("%-24s %-28s %s" % (c, v, where))
    if bad:
        print("check-deps: FAIL: %d command%s or module%s without a listed package"
              % (bad, "" if bad == 1 else "s", "" if bad == 1 else "s"))
        return 1
    print("check-deps: ok: %d commands, each from a listed package, the base system or the repo"
          % len(uses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
