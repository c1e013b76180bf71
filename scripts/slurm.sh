#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the tests of fib's
# `--launcher` (tests/cluster): Debian's slurmctld, slurmd and munge,
# installed if missing, configured if Slurm has no configuration yet, and
# started if not running. The node offers 64 CPUs whatever the machine
# has, so that jobs of many ranks run on a small machine. Safe to run
# again: it does only what is missing and prints nothing when the cluster
# is already up. Needs root.
set -euo pipefail

packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
    if [[ "$(dpkg -s "$p" 2>/dev/null)" != *"Status: install ok installed"* ]]; then
        missing+=("$p")
    fi
done
if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "slurm: installing ${missing[*]} needs root; run this script as root" >&2
        exit 1
    fi
    echo "slurm: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

conf=/etc/slurm/slurm.conf
if [[ ! -f $conf ]]; then
    host=$(hostname)
    mkdir -p /etc/slurm
    cat >"$conf" <<EOF
# A one-node cluster for fib's tests, written by fib's scripts/slurm.sh.
ClusterName=fib
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmdParameters=config_overrides
NodeName=$host CPUs=64 State=UNKNOWN
PartitionName=fib Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
fi
mkdir -p /run/munge /var/spool/slurmd /var/spool/slurmctld /var/log/slurm
chown munge:munge /run/munge

# running NAME: whether a process of that name runs.
running() { pgrep -x "$1" >/dev/null 2>&1; }

if ! running munged; then
    runuser -u munge -- munged
fi
if ! running slurmctld; then
    slurmctld
fi
if ! running slurmd; then
    slurmd
fi
# The node takes a moment to register with the controller.
for _ in $(seq 1 100); do
    if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
        exit 0
    fi
    sleep 0.1
done
echo "slurm: the node did not come up; sinfo says:" >&2
sinfo >&2 || true
exit 1
