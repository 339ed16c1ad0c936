# tests/e2e/hosts.sh - a real PVM virtual machine of several hosts on this
# machine, for end-to-end tests.  Source it after lib.sh.
#
# Design (see docs/pvm-notes.md, "Several hosts on one machine"):
# - Each host is a network namespace of this test's own, named
#   "pg<PID>-<host>", with one veth link onto a bridge that lives in a further
#   namespace ("pg<PID>-hub"), never in the machine's own: the hosts reach
#   each other and nothing else, and the machine's interfaces, routes and
#   addresses are never touched.  Addresses come from 10.250.77.0/24, which
#   exists only inside these namespaces.
# - /etc/netns/<ns>/ holds the host's hosts file (every test host by name),
#   an nsswitch.conf that resolves host names from that file alone and an
#   empty resolv.conf: `ip netns exec` mounts them over /etc, so no name
#   lookup can leave the test either.
# - Every process of a host runs under `unshare --uts` with the host's name
#   set (pvmd finds its own address from its host name, and a task's
#   gethostname() tells which host it runs on), with the host's own PVM_TMP
#   (the daemons' socket files would collide in one).
# - PVM_RSH names a script made here that runs the command line the master
#   pvmd gives it inside the namespace of the named host, with that host's
#   environment: PVM then adds hosts the way it adds real ones (`add hB` in
#   the console, or pvm_addhosts), pvmd to pvmd over the test's own links.
#   A host name that is not one of ours is refused by the script.
# - Clean-up (hosts_down, also from the EXIT/INT/TERM traps, so also on
#   failure): halt the virtual machine, signal by PID any pvmd of ours still
#   alive (the PID read as lib.sh does, checked against the host's PVM_TMP)
#   and every process left in our namespaces (`ip netns pids`: only
#   processes we started live there), delete the namespaces (their links
#   and the bridge go with them), then the /etc/netns files and temp dirs.
# - Where the machine cannot do this (not root, no `ip netns`, no unshare),
#   hosts_up returns 1 and the test ends with "e2e: skipped: needs root and
#   network namespaces (why)", counted as skipped, never as passed
#   (hosts_skip, pg_skip).  Anything else that goes wrong once the machine
#   can do it (no bridge, a host that cannot be made) returns 2: a failure.
#
# Use:
#   hosts_up hA hB hC || hosts_skip   # namespaces, daemons, one machine
#   hosts_net_up hA hB hC             # namespaces only (MPI: no pvmd);
#                                     # $HOSTS_DIR/launch is their ssh
#   hosts_run hA CMD...               # CMD on host hA, with hA's PVM_TMP
#   hosts_pids_on hB                  # PIDs of processes on host hB
#   hosts_logs                        # the pvmd logs, after a failure

HOSTS_PREFIX="pg$$-"
HOSTS_NET=10.250.77
HOSTS_NAMES=()
HOSTS_DIR=
HOSTS_MADE_NS=()
HOSTS_MADE_ETC=()
HOSTS_MADE_NETNS_DIR=

hosts_ns() { echo "$HOSTS_PREFIX$1"; }

# Runs "$@" on host $1: its namespace, its host name, its PVM environment.
hosts_run() {
    local h=$1
    shift
    ip netns exec "$(hosts_ns "$h")" \
        env PVM_TMP="$HOSTS_DIR/$h/pvmtmp" PVM_ROOT=/usr/lib/pvm3 \
        PVM_ALLOW_ROOT=1 PVM_RSH="$HOSTS_DIR/rsh" \
        PVM_PATH=/usr/lib/pvm3/lib:/usr/bin \
        unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}

# Why this machine cannot run the harness, or nothing.  The root check
# asks `id -u`: test_harness.sh puts an `id` that says "not root" first in
# PATH to see the tests skip, so that check must stay first and use id.
hosts_cannot() {
    [ "$(id -u)" -eq 0 ] || { echo "not root"; return; }
    command -v ip >/dev/null || { echo "no ip (iproute2)"; return; }
    command -v unshare >/dev/null || { echo "no unshare (util-linux)"; return; }
    if ! ip netns add "${HOSTS_PREFIX}probe" 2>/dev/null; then
        echo "ip netns add fails"; return
    fi
    ip netns exec "${HOSTS_PREFIX}probe" unshare --uts true 2>/dev/null ||
        echo "unshare --uts fails in a namespace"
    ip netns del "${HOSTS_PREFIX}probe" 2>/dev/null
}

hosts_skip() { pg_skip "needs root and network namespaces ($HOSTS_WHY)"; }

# The files `ip netns exec` mounts over /etc for host $1.
hosts_etc() {
    local h=$1 etc i=1 o
    etc=/etc/netns/$(hosts_ns "$h")
    [ -d /etc/netns ] || { mkdir /etc/netns && HOSTS_MADE_NETNS_DIR=1; }
    mkdir -p "$etc" && HOSTS_MADE_ETC+=("$etc") || return 1
    {
        echo "127.0.0.1 localhost"
        for o in "${HOSTS_NAMES[@]}"; do echo "$HOSTS_NET.$i $o"; i=$((i + 1)); done
    } >"$etc/hosts"
    echo "hosts: files" >"$etc/nsswitch.conf"
    : >"$etc/resolv.conf"
}

# Namespace, link onto the hub's bridge and address of the i-th host $2.
hosts_net() {
    local i=$1 h=$2 ns hub
    ns=$(hosts_ns "$h") hub=$(hosts_ns hub)
    ip netns add "$ns" && HOSTS_MADE_NS+=("$ns") || return 1
    ip -n "$hub" link add "v$h" type veth peer name eth0 netns "$ns" &&
    ip -n "$hub" link set "v$h" master br0 up &&
    ip -n "$ns" link set lo up &&
    ip -n "$ns" addr add "$HOSTS_NET.$i/24" dev eth0 &&
    ip -n "$ns" link set eth0 up
}

# The stand-in for rsh: `rsh HOST [-l LOGIN] COMMAND` runs COMMAND on HOST.
hosts_rsh_script() {
    cat >"$HOSTS_DIR/rsh" <<EOF
#!/bin/sh
# Made by tests/e2e/hosts.sh: rsh for the test hosts only.
h=\$1; shift
[ "\$1" = -l ] && shift 2
case " ${HOSTS_NAMES[*]} " in
*" \$h "*) ;;
*) echo "rsh (test): \$h is not a test host" >&2; exit 1 ;;
esac
exec ip netns exec "$HOSTS_PREFIX\$h" env PVM_TMP="$HOSTS_DIR/\$h/pvmtmp" \\
    PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_RSH="$HOSTS_DIR/rsh" \\
    PVM_PATH=/usr/lib/pvm3/lib:/usr/bin \\
    unshare --uts -- sh -c 'hostname "\$0" && eval "exec \$1"' "\$h" "\$1"
EOF
    chmod +x "$HOSTS_DIR/rsh"
}

# The stand-in for ssh, for MPI launchers (hydra's -launcher rsh
# -launcher-exec, Open MPI's plm_rsh_agent): `launch HOST WORDS...` runs
# the words as one command line of a shell on HOST, as ssh does (Open MPI
# gives "PATH=...; export PATH; ... orted ..." when its launcher was named
# by its path, as pangaea names it), in the clean
# environment a login gives (PATH, HOME), with the host's name: whatever a
# rank there gets of the launcher's environment, the launcher passed it.
hosts_launch_script() {
    cat >"$HOSTS_DIR/launch" <<EOF
#!/bin/sh
# Made by tests/e2e/hosts.sh: ssh for the test hosts only.
h=\$1; shift
case " ${HOSTS_NAMES[*]} " in
*" \$h "*) ;;
*) echo "launch (test): \$h is not a test host" >&2; exit 1 ;;
esac
exec ip netns exec "$HOSTS_PREFIX\$h" env -i PATH=/usr/local/bin:/usr/bin:/bin \\
    HOME="\$HOME" unshare --uts -- sh -c 'hostname "\$0" && exec sh -c "\$1"' "\$h" "\$*"
EOF
    chmod +x "$HOSTS_DIR/launch"
}

# Starts the master pvmd on host $1 and waits for its socket file.
hosts_master() {
    local h=$1 i
    (pg_pvmd_fds; hosts_run "$h" pvmd </dev/null >"$HOSTS_DIR/$h/pvmd.out" 2>&1) &
    for i in $(seq 100); do
        pg_pvmd_pid "$HOSTS_DIR/$h/pvmtmp" >/dev/null && return 0
        sleep 0.1
    done
    echo "hosts: the master pvmd did not come up on $h:" >&2
    cat "$HOSTS_DIR/$h/pvmd.out" "$HOSTS_DIR/$h"/pvmtmp/pvml.* >&2 2>/dev/null
    return 1
}

# Adds the other hosts from the master's console and checks that the
# virtual machine then has them all.
hosts_add() {
    local master=$1 n
    shift
    echo "add $*" | hosts_run "$master" timeout 60 pvm >"$HOSTS_DIR/add.out" 2>&1
    n=$(echo conf | hosts_run "$master" timeout 20 pvm 2>/dev/null |
        grep -cE "^ *($(IFS='|'; echo "$master|$*")) ")
    [ "$n" -eq $(($# + 1)) ] && return 0
    echo "hosts: the virtual machine has $n of $(($# + 1)) hosts:" >&2
    cat "$HOSTS_DIR/add.out" >&2
    return 1
}

# hosts_net_up H1 H2 ...: builds the hosts (namespaces, links, names and
# the rsh script), no pvmd: what an MPI launcher needs.  With HOSTS_WHY
# set, 1 when this machine cannot (a skip), 2 when it can but building
# failed.
hosts_net_up() {
    local i=1 h
    HOSTS_WHY=$(hosts_cannot)
    [ -z "$HOSTS_WHY" ] || return 1
    HOSTS_NAMES=("$@")
    HOSTS_DIR=$(mktemp -d "$PG_TMP_BASE/hosts.XXXXXX") || { HOSTS_WHY="no temp dir"; return 2; }
    ip netns add "$(hosts_ns hub)" && HOSTS_MADE_NS+=("$(hosts_ns hub)") &&
        ip -n "$(hosts_ns hub)" link add br0 type bridge &&
        ip -n "$(hosts_ns hub)" link set br0 up || { HOSTS_WHY="no bridge"; return 2; }
    for h in "$@"; do
        mkdir -p "$HOSTS_DIR/$h/pvmtmp"
        hosts_etc "$h" && hosts_net "$i" "$h" ||
            { HOSTS_WHY="cannot make host $h"; return 2; }
        i=$((i + 1))
    done
    hosts_rsh_script
    hosts_launch_script
}

# hosts_up H1 H2 ...: builds the hosts and a virtual machine of them all,
# its master on H1 (the return codes of hosts_net_up).
hosts_up() {
    hosts_net_up "$@" || return
    hosts_master "$1" && hosts_add "$@" ||
        { HOSTS_WHY="no virtual machine"; return 2; }
}

# The end of every host's pvmd log (tasks' stray output lands there), for
# diagnosis after a failure.
hosts_logs() {
    local h
    for h in "${HOSTS_NAMES[@]}"; do
        echo "--- pvmd log of $h:"
        tail -n 20 "$HOSTS_DIR/$h/pvmtmp/pvml.$(id -u)" 2>/dev/null
    done
}

# PIDs of the processes that run on host $1 (its namespace).
hosts_pids_on() { ip netns pids "$(hosts_ns "$1")" 2>/dev/null; }

# Halts the virtual machine and removes everything hosts_up made.
hosts_down() {
    local h ns pid tmp
    [ -n "$HOSTS_DIR" ] || return 0
    [ "${#HOSTS_NAMES[@]}" -gt 0 ] && [ -d "$HOSTS_DIR/${HOSTS_NAMES[0]}" ] &&
        (echo halt | hosts_run "${HOSTS_NAMES[0]}" timeout 10 pvm) >/dev/null 2>&1
    for h in "${HOSTS_NAMES[@]}"; do
        tmp=$HOSTS_DIR/$h/pvmtmp
        [ -d "$tmp" ] && pg_pvmd_halt "$tmp"
    done
    for ns in "${HOSTS_MADE_NS[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -KILL "$pid" 2>/dev/null
        done
    done
    for ns in "${HOSTS_MADE_NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
    for h in "${HOSTS_MADE_ETC[@]}"; do rm -rf "$h"; done
    [ -n "$HOSTS_MADE_NETNS_DIR" ] && rmdir /etc/netns 2>/dev/null
    rm -rf "$HOSTS_DIR"
    HOSTS_MADE_NS=() HOSTS_MADE_ETC=() HOSTS_DIR=
}

trap 'hosts_down; pg_cleanup' EXIT
trap 'hosts_down; pg_cleanup; trap - EXIT; exit 130' INT
trap 'hosts_down; pg_cleanup; trap - EXIT; exit 143' TERM
