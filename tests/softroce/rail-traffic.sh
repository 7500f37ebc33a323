#!/bin/bash
# rail-traffic.sh: proves that a job spreads its verbs traffic over every
# rail.  Reads the packet counters of every ACTIVE port of every RDMA device,
# runs COMMAND, reads them again, prints the deltas per port and fails unless
# COMMAND succeeded and every port carried at least a given share of the
# packets.
#
#   rail-traffic.sh [--min-share F] [--ports DEV[:PORT][,...]] [--min-ports N] -- COMMAND [ARG...]
#     --min-share F   least share (0..1) of all packets each port must carry
#                     (default 0.2; an even spread over 2 rails gives 0.5)
#     --ports LIST    count only these ports (default: every ACTIVE port)
#     --min-ports N   fewer ports than N: SKIP, exit 77, COMMAND not run
#                     (default 2: one port proves nothing about rails)
#
# Counters, per port: rdma_rxe's hw_counters/sent_pkts + rcvd_pkts (what the
# Soft-RoCE guest's kernel exposes), else the IB standard
# counters/port_xmit_packets + port_rcv_packets (real HCAs).  Both ends of a
# connection on one host count on their own port, so a job whose rail i
# talks to the peer's rail i shows the same delta on sent and received.
# The counters are per device, not per process: run nothing else on the
# devices meanwhile (one job at a time, as the test harness does).
#
# Output: one "rail-traffic: DEV:PORT sent +N rcvd +N = N packets (S %)" line
# per port, the retry/RNR counters that moved, then "rail-traffic: PASS ..."
# or "rail-traffic: FAIL: <why>".  Exit: COMMAND's non-zero status, else 1 if
# a share is too low or nothing moved, 77 with too few ports, 2 on bad usage.
set -u
MIN_SHARE=0.2
ONLY=
MIN_PORTS=2
usage() {
    echo "usage: rail-traffic.sh [--min-share F] [--ports DEV[:PORT][,...]] [--min-ports N] -- COMMAND [ARG...]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --min-share) [ $# -ge 2 ] || usage; MIN_SHARE=$2; shift 2 ;;
    --ports) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
    --min-ports) [ $# -ge 2 ] || usage; MIN_PORTS=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
    esac
done
[ $# -gt 0 ] || usage
[[ $MIN_SHARE =~ ^(0(\.[0-9]+)?|1(\.0*)?|\.[0-9]+)$ ]] ||
    { echo "rail-traffic: --min-share '$MIN_SHARE' is not a share between 0 and 1 (e.g. 0.2)" >&2; exit 2; }
[[ $MIN_PORTS =~ ^[0-9]+$ ]] || { echo "rail-traffic: --min-ports '$MIN_PORTS' is not a count" >&2; exit 2; }
SYS=${RAIL_TRAFFIC_SYSFS:-/sys/class/infiniband}

# The ports to watch: "DEV:PORT" words.
PORTS=()
wanted() { # dev port
    [ -z "$ONLY" ] && return 0
    local w
    for w in ${ONLY//,/ }; do
        [ "$w" = "$1" ] || [ "$w" = "$1:$2" ] && return 0
    done
    return 1
}
for pdir in "$SYS"/*/ports/*; do
    [ -d "$pdir" ] || continue
    dev=${pdir%/ports/*}; dev=${dev##*/}; port=${pdir##*/}
    wanted "$dev" "$port" || continue
    grep -q ACTIVE "$pdir/state" 2>/dev/null || continue
    PORTS+=("$dev:$port")
done
if [ ${#PORTS[@]} -lt "$MIN_PORTS" ]; then
    echo "SKIP: rail-traffic: ${#PORTS[@]} ACTIVE RDMA port(s) (${PORTS[*]:-none}${ONLY:+ among $ONLY}), needs $MIN_PORTS to compare rails"
    exit 77
fi

# read_counter DEV:PORT NAME: prints the counter's value (0 if absent).
read_counter() {
    local d=${1%:*} p=${1#*:} v
    v=$(cat "$SYS/$d/ports/$p/$2" 2>/dev/null) || v=0
    echo "${v:-0}"
}
# counter_names DEV:PORT: "sent rcvd" counter file names for this port.
counter_names() {
    local d=${1%:*} p=${1#*:}
    if [ -r "$SYS/$d/ports/$p/hw_counters/sent_pkts" ]; then
        echo "hw_counters/sent_pkts hw_counters/rcvd_pkts"
    else
        echo "counters/port_xmit_packets counters/port_rcv_packets"
    fi
}
ERRS="completer_retry_err retry_exceeded_err rcvd_rnr_err send_rnr_err rcvd_seq_err out_of_seq_request duplicate_request"
# snapshot: one line per port: DEV:PORT SENT RCVD ERR...
snapshot() {
    local pt names s r e errs
    for pt in "${PORTS[@]}"; do
        read -r s r <<<"$(counter_names "$pt")"
        errs=
        for e in $ERRS; do errs="$errs $(read_counter "$pt" "hw_counters/$e")"; done
        echo "$pt $(read_counter "$pt" "$s") $(read_counter "$pt" "$r")$errs"
    done
}

before=$(snapshot)
"$@"
st=$?
after=$(snapshot)

# Deltas, shares and the verdict (awk: the counters exceed 32 bits on HCAs).
verdict=$(paste -d' ' <(echo "$before") <(echo "$after") |
    awk -v min="$MIN_SHARE" -v errs="$ERRS" '
    {
        n = (NF / 2)
        name[NR] = $1; ds[NR] = $(n + 2) - $2; dr[NR] = $(n + 3) - $3
        tot[NR] = ds[NR] + dr[NR]; all += tot[NR]
        ne = split(errs, en, " "); moved[NR] = ""
        for (i = 1; i <= ne; i++) { d = $(n + 3 + i) - $(3 + i); if (d) moved[NR] = moved[NR] " " en[i] " +" d }
        rows = NR
    }
    END {
        bad = ""
        for (i = 1; i <= rows; i++) {
            share = all ? tot[i] / all : 0
            printf "rail-traffic: %s sent +%d rcvd +%d = %d packets (%.1f %%)%s\n", name[i], ds[i], dr[i], tot[i], 100 * share, moved[i] ? ";" moved[i] : ""
            if (share < min) bad = bad sprintf(" %s has %.1f %% < %.1f %%;", name[i], 100 * share, 100 * min)
        }
        if (all == 0) print "FAIL: no packet on any port (did COMMAND use verbs? PSHM off needs GASNET_SUPERNODE_MAXSIZE=1)"
        else if (bad != "") print "FAIL:" bad " traffic is not spread over every rail (a multi-rail build? GASNET_NUM_QPS? GASNET_IBV_PORTS?)"
        else printf "PASS %d packets over %d ports, each >= %.1f %%\n", all, rows, 100 * min
    }')
echo "$verdict" | sed -n '/^rail-traffic: /p'
res=$(echo "$verdict" | grep -E '^(PASS|FAIL)')
if [ $st != 0 ]; then
    echo "rail-traffic: FAIL: the command exited with status $st (${res})"
    exit $st
fi
echo "rail-traffic: $res"
case $res in PASS*) exit 0 ;; *) exit 1 ;; esac
