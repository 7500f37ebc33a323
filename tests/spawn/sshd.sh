# tests/spawn/sshd.sh: a throw-away sshd for the ssh spawner tests (sourced).
#
#   sshd_start DIR    generates a host key and a user key in DIR, starts
#                     sshd -D on 127.0.0.1 at a free high port, waits until
#                     it accepts connections; sets SSHD_PID, SSHD_PORT and
#                     SSH_TEST_OPTIONS (the GASNET_SSH_OPTIONS that reach it
#                     without touching ~/.ssh).  Returns 77 when sshd or
#                     ssh-keygen is missing, 1 when it cannot start.
#   sshd_stop         kills it (and every session it still has).
#   sshd_sessions     PIDs of processes descended from it (its sessions).
# The caller traps EXIT to call sshd_stop.

sshd_find() {
    SSHD_BIN=$(command -v sshd 2>/dev/null || true)
    [ -n "$SSHD_BIN" ] || { [ -x /usr/sbin/sshd ] && SSHD_BIN=/usr/sbin/sshd; }
    [ -n "$SSHD_BIN" ] && command -v ssh-keygen >/dev/null 2>&1 && command -v ssh >/dev/null 2>&1
}

sshd_start() {
    local dir=$1 port i
    sshd_find || { echo "SKIP: sshd, ssh or ssh-keygen missing (contrib/install-deps.sh installs openssh-server)"; return 77; }
    mkdir -p "$dir"
    chmod 700 "$dir"
    ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" </dev/null >/dev/null || return 1
    ssh-keygen -q -t ed25519 -N '' -f "$dir/user_key" </dev/null >/dev/null || return 1
    cp "$dir/user_key.pub" "$dir/authorized_keys"
    chmod 600 "$dir/authorized_keys"
    # sshd refuses to start as root without its privilege-separation directory.
    [ "$(id -u)" != 0 ] || mkdir -p /run/sshd
    for i in 1 2 3 4 5 6 7 8; do
        port=$((20000 + (RANDOM % 40000)))
        cat >"$dir/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PermitUserEnvironment no
MaxStartups 100:30:200
MaxSessions 100
LogLevel ERROR
CONF
        "$SSHD_BIN" -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
        SSHD_PID=$!
        local t
        for t in $(seq 1 50); do
            if ! kill -0 "$SSHD_PID" 2>/dev/null; then break; fi
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                SSHD_PORT=$port
                SSH_TEST_OPTIONS="-F /dev/null -p $port -i $dir/user_key -o IdentitiesOnly=yes -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=no -o LogLevel=ERROR"
                return 0
            fi
            sleep 0.1
        done
        kill "$SSHD_PID" 2>/dev/null
        wait "$SSHD_PID" 2>/dev/null
        SSHD_PID=
    done
    echo "cannot start sshd:"; cat "$dir/sshd.log"
    return 1
}

# Every descendant of pid $1 (children first found through /proc).
descendants() {
    local p c
    for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$p"
        descendants "$p"
    done
}

sshd_sessions() {
    [ -n "${SSHD_PID:-}" ] && descendants "$SSHD_PID"
}

sshd_stop() {
    [ -n "${SSHD_PID:-}" ] || return 0
    local s
    s=$(sshd_sessions)
    kill "$SSHD_PID" 2>/dev/null
    # shellcheck disable=SC2086
    [ -n "$s" ] && kill -KILL $s 2>/dev/null
    wait "$SSHD_PID" 2>/dev/null
    SSHD_PID=
}
