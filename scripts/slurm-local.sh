#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for tests and demos of `launcher = "srun"` and `sweep submit`.
#
#   scripts/slurm-local.sh start    install slurm-wlm and munge if missing, start munged, slurmctld and slurmd
#                                   (as root), wait until `sinfo` shows the node idle; a no-op when running
#   scripts/slurm-local.sh stop     stop exactly the daemons `start` started (by their pid files)
#   scripts/slurm-local.sh status   say which of them run
#
# Everything it writes lives under $SWEEP_SLURM_DIR (default /var/tmp/sweep-slurm): slurm.conf, state,
# spool, logs, pid files. /etc/slurm/slurm.conf becomes a symlink to that slurm.conf so srun, sbatch and
# sinfo find it without SLURM_CONF; a slurm.conf that is not ours is never touched (start refuses).
# Exit status 3: Slurm cannot be installed or started here (not root, or no apt-get).
set -euo pipefail

DIR="${SWEEP_SLURM_DIR:-/var/tmp/sweep-slurm}"
CONF="$DIR/slurm.conf"
SYSTEM_CONF=/etc/slurm/slurm.conf
MUNGE_SOCKET=/run/munge/munge.socket.2
# Written only when this script started munged: a munged that was already running is not ours to stop.
MUNGE_PID="$DIR/munged.pid"
CTLD_PID="$DIR/slurmctld.pid"
SLURMD_PID="$DIR/slurmd.pid"
READY_TIMEOUT=60

die() { echo "slurm-local: $*" >&2; exit 1; }
cannot_install() { echo "slurm-local: $*" >&2; exit 3; }
say() { echo "slurm-local: $*" >&2; }

running() { # pid file -> true when the process it names is alive
    [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

install_if_missing() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
        && command -v srun >/dev/null; then
        return
    fi
    [[ $(id -u) == 0 ]] || cannot_install "slurm-wlm and munge are not installed and installing them needs root"
    command -v apt-get >/dev/null || cannot_install "slurm-wlm and munge are not installed and there is no apt-get"
    say "installing slurm-wlm and munge"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
}

# The MPI plugin srun uses by default: pmix when Slurm was built with it (Debian's is, and Debian's OpenMPI
# speaks PMIx), else pmi2.
mpi_default() {
    if ls /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib/slurm/mpi_pmix.so >/dev/null 2>&1; then
        echo pmix
    else
        echo pmi2
    fi
}

write_conf() {
    local host cpus
    host=$(hostname -s)
    cpus=$(nproc)
    mkdir -p "$DIR/state" "$DIR/spool"
    cat >"$CONF.tmp" <<EOF
# Written by scripts/slurm-local.sh (sweep): a single-node cluster for tests and demos.
ClusterName=sweep-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=$(mpi_default)
SchedulerType=sched/builtin
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# Ended jobs stay visible to squeue/scontrol for a while (there is no accounting database for sacct).
MinJobAge=300
KillWait=5
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
    mv "$CONF.tmp" "$CONF"
}

link_system_conf() {
    if [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; then
        return
    fi
    [[ -e "$SYSTEM_CONF" ]] && die "$SYSTEM_CONF exists and is not ours; this machine already has a Slurm setup"
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -s "$CONF" "$SYSTEM_CONF"
}

start_munge() {
    if [[ -S "$MUNGE_SOCKET" ]] && munge -n </dev/null | unmunge >/dev/null 2>&1; then
        return # a munged runs (ours from an earlier start, or the system's)
    fi
    [[ -s /etc/munge/munge.key ]] || die "no /etc/munge/munge.key (reinstall munge)"
    install -d -o munge -g munge -m 0755 /run/munge
    # munged runs as the munge user, so its own pid file goes in its own /run/munge; ours is a copy.
    runuser -u munge -- munged --pid-file=/run/munge/sweep-munged.pid
    wait_for "munged" 10 test -s /run/munge/sweep-munged.pid
    cp /run/munge/sweep-munged.pid "$MUNGE_PID"
}

wait_for() { # what, seconds, command...: polls once a second
    local what=$1 seconds=$2
    shift 2
    for ((i = 0; i < seconds; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 1
    done
    die "$what not ready after ${seconds}s (logs in $DIR)"
}

node_idle() {
    sinfo -h -N -o '%t' | grep -qx 'idle'
}

start() {
    install_if_missing
    [[ $(id -u) == 0 ]] || cannot_install "start needs root (slurmctld and slurmd run as root here)"
    mkdir -p "$DIR"
    write_conf
    link_system_conf
    start_munge
    running "$CTLD_PID" || slurmctld -f "$CONF"
    running "$SLURMD_PID" || slurmd -f "$CONF"
    wait_for "slurmctld" 20 scontrol ping
    wait_for "the node" "$READY_TIMEOUT" node_idle
    say "ready: $(sinfo -h -N -o '%N %t %c CPUs')"
}

stop_one() { # name, pid file
    local name=$1 file=$2 pid
    running "$file" || { rm -f "$file"; return 0; }
    pid=$(cat "$file")
    kill -TERM "$pid"
    for ((i = 0; i < 20; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    rm -f "$file"
    say "stopped $name ($pid)"
}

stop() {
    stop_one slurmd "$SLURMD_PID"
    stop_one slurmctld "$CTLD_PID"
    stop_one munged "$MUNGE_PID"
    if [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; then
        rm -f "$SYSTEM_CONF"
    fi
}

status() {
    local any=1
    for pair in "munged:$MUNGE_PID" "slurmctld:$CTLD_PID" "slurmd:$SLURMD_PID"; do
        if running "${pair#*:}"; then
            echo "${pair%%:*}: running (pid $(cat "${pair#*:}"))"
            any=0
        else
            echo "${pair%%:*}: not started by slurm-local"
        fi
    done
    if command -v sinfo >/dev/null && sinfo -h >/dev/null 2>&1; then
        echo "node: $(sinfo -h -N -o '%N %t %c CPUs')"
    fi
    return $any
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) die "usage: $0 start|stop|status" ;;
esac
