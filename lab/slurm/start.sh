#!/usr/bin/env bash
# Starts a loopback Slurm cluster for the sift lab: slurmctld, one slurmd per
# NodeName (multiple-slurmd build, all on loopback) and, with --dbd, a
# private MariaDB (own datadir and socket under $LAB_RUN, 127.0.0.1:$DB_PORT)
# and slurmdbd with accounts loaded from a sacctmgr command file (one
# sacctmgr command a line, @USER@ standing for the user running the lab).
#
#   lab/slurm/start.sh [--conf FRAGMENT] [--gres GRES_CONF] [--nodes N]
#                      [--dbd] [--sacctmgr FILE]
#
# FRAGMENT holds the case's slurm.conf lines (SelectType, NodeName,
# PartitionName, ...); the lab owns the cluster name, ports, users, auth and
# paths and drops those keys from it. Without --conf, N (default 16) nodes
# n1..nN of 8 CPUs and 16000 MB. Stops whatever the lab ran before, so a
# second start leaves no strays. Works as root or as an unprivileged user:
# every daemon runs as the calling user and binds loopback only, and
# every pid, state, log, spool and socket file is under $LAB_RUN, except
# that auth/slurm (LAB_AUTH=slurm, the default as root) binds its sockets in
# /run/slurm, /run/slurmctld and /run/slurmdbd; LAB_AUTH=munge (the default
# otherwise) runs a private munged on $LAB_RUN/munge/munge.socket instead.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/env.sh"
FRAG="" GRES="" NODES=16 DBD=0 SACCT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--conf) FRAG="$2"; shift 2 ;;
	--gres) GRES="$2"; shift 2 ;;
	--nodes) NODES="$2"; shift 2 ;;
	--dbd) DBD=1; shift ;;
	--sacctmgr) SACCT="$2"; DBD=1; shift 2 ;;
	*) echo "start.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -x "$SLURM_PREFIX/sbin/slurmctld" ] || { echo "start.sh: no Slurm in $SLURM_PREFIX (run install.sh)" >&2; exit 1; }

"$HERE/stop.sh" >/dev/null
rm -rf "$LAB_RUN/state" "$LAB_RUN/spool" "$LAB_RUN/etc"
mkdir -p "$LAB_RUN"/{etc,state,spool,log,pids,dev,jobs}
# Searchable, not listable, by others: munged insists that every directory
# above its socket is; the keys and the database config are mode 600.
chmod 711 "$LAB_RUN"
for i in $(seq 0 15); do : >"$LAB_RUN/dev/nvidia$i"; done
ETC="$LAB_RUN/etc"
[ -f "$LAB_RUN/slurm.key" ] || { head -c 1024 /dev/urandom >"$LAB_RUN/slurm.key"; chmod 600 "$LAB_RUN/slurm.key"; }
cp "$LAB_RUN/slurm.key" "$ETC/slurm.key"

# The case's lines, without the keys the lab owns.
OWNED='^(ClusterName|SlurmctldHost|SlurmctldPort|SlurmUser|SlurmdUser|AuthType|CredType|StateSaveLocation|SlurmdSpoolDir|SlurmctldPidFile|SlurmdPidFile|SlurmctldLogFile|SlurmdLogFile|AccountingStorageHost|AccountingStoragePort|AccountingStoragePass|CommunicationParameters|AuthInfo)='
if [ -n "$FRAG" ]; then
	grep -Ev "$OWNED" "$FRAG" | sed "s#/work/slurmrun#$LAB_RUN#g" >"$ETC/case.conf"
else
	: >"$ETC/case.conf"
	for i in $(seq "$NODES"); do
		echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((SLURMD_PORT + i)) CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=16000" >>"$ETC/case.conf"
	done
	echo "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP" >>"$ETC/case.conf"
fi
# CommunicationParameters=NoInAddrAny makes every daemon (slurmctld,
# slurmd, slurmdbd) bind the address its host's name resolves to
# (slurm_setup_addr(): gethostname()), not its NodeAddr. That is loopback on
# Debian (/etc/hosts: 127.0.1.1, or 127.0.0.1), so the nodes are given that
# address; a host whose name resolves elsewhere gets 127.0.0.1 and daemons
# that bind every interface, with a warning.
LOOP="$(getent ahostsv4 "$(hostname)" 2>/dev/null | awk 'NR == 1 { print $1 }')"
case "$LOOP" in
127.*) NOANY=1 ;;
*)
	echo "start.sh: $(hostname) resolves to ${LOOP:-nothing}, not loopback: the daemons will listen on every interface" >&2
	LOOP=127.0.0.1 NOANY=0
	;;
esac
sed -i "s/NodeAddr=127\.0\.0\.1\([ ,]\|$\)/NodeAddr=$LOOP\1/" "$ETC/case.conf"
has() { grep -Eq "^$1=" "$ETC/case.conf"; }
{
	echo "ClusterName=sift"
	echo "SlurmctldHost=localhost($LOOP)"
	echo "SlurmctldPort=$CTLD_PORT"
	echo "SlurmUser=$LAB_USER"
	echo "SlurmdUser=$LAB_USER"
	if [ "$LAB_AUTH" = munge ]; then
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$MUNGE_SOCKET"
	else
		echo "AuthType=auth/slurm"
		echo "CredType=cred/slurm"
	fi
	if [ "$NOANY" = 1 ]; then echo "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny"; fi
	echo "StateSaveLocation=$LAB_RUN/state"
	echo "SlurmdSpoolDir=$LAB_RUN/spool/%n"
	echo "SlurmctldPidFile=$LAB_RUN/pids/slurmctld.pid"
	echo "SlurmdPidFile=$LAB_RUN/pids/slurmd.%n.pid"
	echo "SlurmctldLogFile=$LAB_RUN/log/slurmctld.log"
	echo "SlurmdLogFile=$LAB_RUN/log/slurmd.%n.log"
	# Defaults a case may override.
	has ProctrackType || echo "ProctrackType=proctrack/linuxproc"
	has TaskPlugin || echo "TaskPlugin=task/none"
	has JobAcctGatherType || echo "JobAcctGatherType=jobacct_gather/none"
	has SlurmdParameters || echo "SlurmdParameters=config_overrides"
	has SchedulerType || echo "SchedulerType=sched/builtin"
	has ReturnToService || echo "ReturnToService=2"
	has MpiDefault || echo "MpiDefault=none"
	has GresTypes || echo "GresTypes=gpu"
	has MinJobAge || echo "MinJobAge=2"
	has SchedulerParameters || echo "SchedulerParameters=batch_sched_delay=0"
	if [ "$DBD" = 1 ]; then
		has AccountingStorageType || echo "AccountingStorageType=accounting_storage/slurmdbd"
		echo "AccountingStorageHost=$LOOP"
		echo "AccountingStoragePort=$DBD_PORT"
		# Messages to slurmdbd are signed with the munge socket named here,
		# not AuthInfo's.
		if [ "$LAB_AUTH" = munge ]; then echo "AccountingStoragePass=$MUNGE_SOCKET"; fi
		has AccountingStorageEnforce || echo "AccountingStorageEnforce=associations,limits,qos"
	fi
	cat "$ETC/case.conf"
} >"$SLURM_CONF"
if [ -n "$GRES" ]; then sed "s#/work/slurmrun#$LAB_RUN#g" "$GRES" >"$ETC/gres.conf"; else : >"$ETC/gres.conf"; fi

wait_for() { # what seconds command...
	local what="$1" secs="$2"; shift 2
	for _ in $(seq $((secs * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "start.sh: $what did not come up; see $LAB_RUN/log" >&2; return 1
}

if [ "$LAB_AUTH" = munge ]; then
	mkdir -p "$LAB_RUN/munge"
	chmod 755 "$LAB_RUN/munge" # munged wants its socket directory searchable by all
	[ -f "$LAB_RUN/munge/munge.key" ] || { head -c 1024 /dev/urandom >"$LAB_RUN/munge/munge.key"; chmod 600 "$LAB_RUN/munge/munge.key"; }
	munged --socket="$MUNGE_SOCKET" --key-file="$LAB_RUN/munge/munge.key" \
		--pid-file="$LAB_RUN/pids/munged.pid" --log-file="$LAB_RUN/log/munged.log" \
		--seed-file="$LAB_RUN/munge/munged.seed"
	wait_for munged 10 munge -n --socket="$MUNGE_SOCKET"
fi

if [ "$DBD" = 1 ]; then
	DB="$LAB_RUN/mysql" SOCK="$LAB_RUN/mysql.sock"
	if [ ! -d "$DB/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$DB" --user="$LAB_USER" \
			--auth-root-authentication-method=normal --skip-test-db >"$LAB_RUN/log/mariadb-install.log" 2>&1
	fi
	mariadbd --no-defaults --datadir="$DB" --socket="$SOCK" --port="$DB_PORT" \
		--bind-address=127.0.0.1 --pid-file="$LAB_RUN/pids/mariadb.pid" --user="$LAB_USER" \
		--log-error="$LAB_RUN/log/mariadb.log" >/dev/null 2>&1 &
	wait_for MariaDB 60 mariadb --no-defaults -S "$SOCK" -u root -e 'select 1'
	# A fresh accounting database each start: the case's accounts and nothing else.
	mariadb --no-defaults -S "$SOCK" -u root -e "DROP DATABASE IF EXISTS slurm_acct_db_sift;
		CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'siftlab';
		GRANT ALL ON slurm_acct_db_sift.* TO 'slurm'@'127.0.0.1';"
	if [ "$LAB_AUTH" = munge ]; then
		DBD_AUTH="AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET"
	else
		DBD_AUTH="AuthType=auth/slurm"
	fi
	# slurmdbd has no option naming its listening address (DbdAddr is what
	# others dial): NoInAddrAny, as above, instead of 0.0.0.0.
	DBD_COMM=""
	if [ "$NOANY" = 1 ]; then DBD_COMM="CommunicationParameters=NoInAddrAny"; fi
	cat >"$ETC/slurmdbd.conf" <<DBD
$DBD_AUTH
$DBD_COMM
DbdHost=localhost
DbdAddr=$LOOP
DbdPort=$DBD_PORT
SlurmUser=$LAB_USER
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=siftlab
StorageLoc=slurm_acct_db_sift
PidFile=$LAB_RUN/pids/slurmdbd.pid
LogFile=$LAB_RUN/log/slurmdbd.log
DBD
	chmod 600 "$ETC/slurmdbd.conf"
	slurmdbd
	wait_for slurmdbd 60 sacctmgr -n list cluster
	sacctmgr -i add cluster sift >/dev/null || { echo "start.sh: sacctmgr add cluster failed" >&2; exit 1; }
	if [ -z "$SACCT" ]; then
		# No accounts given: one account, lab, holding the lab's user, so
		# that user may submit under AccountingStorageEnforce=associations
		# (sacctmgr adds root to the cluster by itself, nobody else).
		SACCT="$ETC/default.sacctmgr"
		printf 'add account lab\nadd user @USER@ account=lab\n' >"$SACCT"
	fi
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		line="${line//@USER@/$LAB_USER}"
		# shellcheck disable=SC2086
		sacctmgr -i $line >/dev/null || { echo "start.sh: sacctmgr $line failed" >&2; exit 1; }
	done <"$SACCT"
fi

slurmctld -c
wait_for slurmctld 60 scontrol ping
# Every slurmd of a host unlinks and binds /run/slurm/sack.socket (auth/slurm),
# so one started beside another can lose that race and exit: start again
# whichever is not running.
NODE_NAMES=$(sed -n 's/^NodeName=\([^ ]*\) .*NodeAddr=.*/\1/p' "$SLURM_CONF")
for attempt in 1 2 3 4 5; do
	missing=0
	for n in $NODE_NAMES; do
		pid="$(cat "$LAB_RUN/pids/slurmd.$n.pid" 2>/dev/null || true)"
		if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
			missing=$((missing + 1))
			slurmd -N "$n" || true
		fi
	done
	[ "$missing" = 0 ] && break
	sleep 1
done
want=$(grep -c '^NodeName=.*NodeAddr=' "$SLURM_CONF")
idle() { [ "$(sinfo -h -N -o '%N %t' | sort -u | grep -c ' idle$')" -ge "$want" ]; }
wait_for "$want idle nodes" 120 idle
echo "lab: $want nodes up (SLURM_CONF=$SLURM_CONF)$([ "$DBD" = 1 ] && echo ', slurmdbd on MariaDB 127.0.0.1:'"$DB_PORT")"
