# tests/surface/common.sh: shared by check-surface.sh and check-constants.sh
# (sourced; $here is the directory of both).
#
# surface_setup NAME CC KEEP FILE...: fails (exit 2) unless every FILE is
# readable; sets $work to KEEP (created) or to a temporary directory that
# is removed at exit, and $errlimit to the flag that makes CC report every
# error (clang stops after 20 unless told; gcc never does).
surface_setup() {
    _name=$1 _cc=$2 _keep=$3
    shift 3
    for _f in "$@"; do
        [ -r "$_f" ] || { echo "$_name: cannot read $_f" >&2; exit 2; }
    done
    if [ -n "$_keep" ]; then
        work=$_keep
        mkdir -p "$work" || exit 2
    else
        work=$(mktemp -d "${TMPDIR:-/tmp}/$_name.XXXXXX") || exit 2
        trap 'rm -rf "$work"' EXIT
        trap 'exit 1' HUP INT TERM
    fi
    errlimit=
    case $($_cc --version 2>/dev/null | head -n 1) in
    *clang*) errlimit=-ferror-limit=0 ;;
    esac
}
