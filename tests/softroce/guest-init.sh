#!/bin/sh
# Stage 2 of the Soft-RoCE guest: PID 1 on the overlay root, after
# initramfs-init did switch_root.  Finishes the mounts, creates the network
# devices and the rxe (Soft-RoCE) devices of the chosen layout, runs the
# command (the run directory's cmd.sh), records its exit status in the run
# directory and powers off.  PID 1 must never exit: every path ends in
# poweroff -f.
#
# Parameters (environment variables from the kernel command line):
#   sr_run     run directory (a read-write share, same path as on the host)
#   sr_moddir  host path of the unpacked /lib/modules/<version> tree
#   sr_net     layout: dummy (default) | veth | lo | none
#   sr_mtu     MTU of the netdevs under rxe (9000 -> RoCE active MTU 4096)
#   sr_quiet   1 = do not copy the setup log to the command's output

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
umask 022
RUN=$sr_run
NET=${sr_net:-dummy}
MTU=${sr_mtu:-9000}
BB=/bin/busybox

# The command's output goes to a virtio-serial port (not a tty: no CR/LF
# translation) that qemu writes to $RUN/output.log.
OUTDEV=/dev/console
for p in /sys/class/virtio-ports/*; do
    [ "$(cat "$p/name" 2>/dev/null)" = softroce.out ] && [ -c "/dev/${p##*/}" ] && OUTDEV=/dev/${p##*/}
done

log() { echo "softroce: $*" >>"$RUN/setup.log"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
finish() { # $1 = exit status to report
    echo "$1" >"$RUN/exit-status.tmp" && mv "$RUN/exit-status.tmp" "$RUN/exit-status"
    sync
    $BB poweroff -f
    sleep 10
    echo o >/proc/sysrq-trigger
}

# ---- mounts, names -------------------------------------------------------------
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
mount -t configfs configfs /sys/kernel/config 2>/dev/null
KVER=$(uname -r)
# modprobe in the guest: bind the unpacked module tree at the usual place.
if [ -n "$sr_moddir" ] && [ -d "$sr_moddir" ] && [ "$sr_moddir" != "/lib/modules/$KVER" ]; then
    mkdir -p "/lib/modules/$KVER" && mount --bind "$sr_moddir" "/lib/modules/$KVER"
fi
hostname softroce 2>/dev/null || $BB hostname softroce
# / is an overlay: /etc/hosts can be patched privately so that localhost and
# our name resolve even if the host's file lacks them.
grep -qs '^127\.0\.0\.1[[:space:]].*localhost' /etc/hosts || echo '127.0.0.1 localhost' >>/etc/hosts
grep -qs '^::1[[:space:]].*localhost' /etc/hosts || echo '::1 localhost ip6-localhost' >>/etc/hosts
echo '127.0.1.1 softroce' >>/etc/hosts
log "stage2 start uptime=$(uptime_s) kernel=$KVER net=$NET"

# ---- network and rxe devices -------------------------------------------------
#   dummy: srnet0 (dummy, 169.254.1.1/24) carrying rxe0.
#   veth : srnet0 (169.254.2.1/24) <-> srnet1 (169.254.2.2/24), a veth pair;
#          rxe0 on srnet0, rxe1 on srnet1 (two "rails").
#   lo   : rxe0 on the loopback device.
#   none : nothing; the command builds its own (ip link / rdma link add).
# All addresses are link-local and the guest has no NIC: nothing leaves it.
ip link set lo up
ip link del dummy0 2>/dev/null   # created when dummy.ko loads
add_rxe() { # $1 = rxe name, $2 = netdev
    rdma link add "$1" type rxe netdev "$2" >>"$RUN/setup.log" 2>&1 || { log "rdma link add $1 on $2 FAILED"; return 1; }
    log "rxe $1 on $2"
}
OK=1
case "$NET" in
dummy)
    { ip link add srnet0 type dummy && ip link set srnet0 mtu "$MTU" &&
      ip addr add 169.254.1.1/24 dev srnet0 && ip link set srnet0 up; } >>"$RUN/setup.log" 2>&1 || OK=0
    add_rxe rxe0 srnet0 || OK=0
    export SOFTROCE_RXE_DEVS=rxe0 SOFTROCE_NETDEVS=srnet0 SOFTROCE_IPV4=169.254.1.1 SOFTROCE_GID_INDEX=0
    ;;
veth)
    { ip link add srnet0 type veth peer name srnet1 &&
      ip link set srnet0 mtu "$MTU" && ip link set srnet1 mtu "$MTU" &&
      ip addr add 169.254.2.1/24 dev srnet0 && ip addr add 169.254.2.2/24 dev srnet1 &&
      ip link set srnet0 up && ip link set srnet1 up; } >>"$RUN/setup.log" 2>&1 || OK=0
    add_rxe rxe0 srnet0 || OK=0
    add_rxe rxe1 srnet1 || OK=0
    export SOFTROCE_RXE_DEVS="rxe0 rxe1" SOFTROCE_NETDEVS="srnet0 srnet1"
    export SOFTROCE_IPV4="169.254.2.1 169.254.2.2" SOFTROCE_GID_INDEX=0
    ;;
lo)
    add_rxe rxe0 lo || OK=0
    # GID 0 (from lo's all-zero MAC) does not work there; GID 1 (::ffff:127.0.0.1) does.
    export SOFTROCE_RXE_DEVS=rxe0 SOFTROCE_NETDEVS=lo SOFTROCE_IPV4=127.0.0.1 SOFTROCE_GID_INDEX=1
    ;;
none) ;;
*) log "unknown layout sr_net=$NET"; OK=0 ;;
esac

# Wait (at most ~10 s) until every rxe port is ACTIVE and has its GIDs: GID 0
# (IPv6 link-local) appears with the netdev's IPv6 address, after the IPv4 one.
if [ "$NET" != none ] && [ $OK = 1 ]; then
    n=0
    while [ $n -lt 100 ]; do
        ready=1
        rdma link show 2>/dev/null | grep -v 'state ACTIVE' | grep -q . && ready=0
        for d in $SOFTROCE_RXE_DEVS; do
            g=$(cat "/sys/class/infiniband/$d/ports/1/gids/0" 2>/dev/null)
            [ -n "$g" ] && [ "$g" != 0000:0000:0000:0000:0000:0000:0000:0000 ] || ready=0
        done
        [ $ready = 1 ] && break
        sleep 0.1; n=$((n + 1))
    done
    [ $ready = 1 ] || { log "rxe ports not ready after 10 s"; OK=0; }
    rdma link show >>"$RUN/setup.log" 2>&1
    for d in $SOFTROCE_RXE_DEVS; do
        for i in 0 1 2 3; do
            g=$(cat "/sys/class/infiniband/$d/ports/1/gids/$i" 2>/dev/null)
            [ -n "$g" ] && [ "$g" != 0000:0000:0000:0000:0000:0000:0000:0000 ] &&
                log "$d GID[$i] $g $(cat "/sys/class/infiniband/$d/ports/1/gid_attrs/types/$i" 2>/dev/null)"
        done
    done
fi
ip -br addr >>"$RUN/setup.log" 2>&1
export SOFTROCE_GUEST=1 SOFTROCE_NET=$NET

# ---- the command -------------------------------------------------------------------
log "command start uptime=$(uptime_s)"
if [ $OK != 1 ]; then
    log "rxe setup failed; the command was not run"
    : >"$RUN/setup-failed"
    finish 125
fi
[ "$sr_quiet" = 1 ] || cat "$RUN/setup.log" >"$OUTDEV"
ulimit -l unlimited 2>/dev/null
ulimit -c 0 2>/dev/null
ulimit -n 65536 2>/dev/null
/bin/bash "$RUN/cmd.sh" </dev/null >"$OUTDEV" 2>&1
st=$?
log "command exit status $st uptime=$(uptime_s)"
finish "$st"
