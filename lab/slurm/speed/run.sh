#!/bin/bash
# Speed, side by side: one queue, slurmctld's backfill cycle and sift's.
# Starts the lab with NODES (default 64) nodes of 8 cores (sched/backfill,
# cons_tres, bf_max_job_test=6000, bf_window=2 days, bf_interval=60), fills
# it with one never-ending exclusive job per node (limits 1-48 h) and N
# (default 5000) pending jobs (1-16 nodes, 1-8 tasks a node, 10 min-24 h;
# seeded by SEED), then every 10 s logs sdiag's backfill cycles and the CPU
# time of slurmctld's backfill thread (bckfl) to $OUT/cycles.log until
# CYCLES (default 6) cycles have ended at the end of the queue. It then
# snapshots the plan (squeue --start) and the queue (squeue --json),
# converts the queue to a sift jobs file (siftlab squeue2jobs), times
# `sift schedule` on it with the lab's slurm.conf at the cycle's start, and
# compares the two plans job by job. The lab is left running; stop it with
# lab/slurm/stop.sh.
#
#   OUT=/tmp/speed lab/slurm/speed/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
. "$here/../env.sh"
NODES="${NODES:-64}" N="${N:-5000}" SEED="${SEED:-1}" CYCLES="${CYCLES:-6}"
OUT="${OUT:-$LAB_RUN/speed}"
mkdir -p "$OUT"
{
	echo "SelectType=select/cons_tres"
	echo "SelectTypeParameters=CR_Core"
	echo "SchedulerType=sched/backfill"
	echo "SchedulerParameters=bf_continue,bf_interval=60,bf_max_job_test=6000,bf_max_time=600,bf_window=2880,bf_resolution=60,batch_sched_delay=0,default_queue_depth=100"
	echo "MaxJobCount=20000"
	for i in $(seq 1 "$NODES"); do
		echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((SLURMD_PORT + i)) CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=16000"
	done
	echo "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP"
} >"$OUT/speed.conf"
"$here/../start.sh" --conf "$OUT/speed.conf"
awk -v seed="$SEED" -v n="$N" -v nodes="$NODES" 'BEGIN {
	srand(seed)
	for (i = 1; i <= nodes; i++) printf "-N1 --exclusive -t %d\n", 60 + int(rand() * 2821)
	for (i = 1; i <= n; i++) {
		k = (rand() < 0.6) ? 1 + int(rand() * 4) : 1 + int(rand() * 16)
		tasks = k * (1 + int(rand() * 8))
		printf "-N%d -n%d -t %d\n", k, tasks, 10 + int(rand() * 1431)
	}
}' >"$OUT/jobs.args"
head -n "$NODES" "$OUT/jobs.args" | while read -r a; do sbatch -Q $a -o /dev/null --wrap 'sleep 1000000'; done
tail -n +"$((NODES + 1))" "$OUT/jobs.args" | xargs -P 4 -I{} sh -c 'sbatch -Q {} -o /dev/null --wrap "sleep 1000000"'
pid=$(cat "$LAB_RUN/pids/slurmctld.pid")
bf_field() { sdiag | sed -n '/Backfilling/,$p' | awk -F: -v k="$1" '$1 ~ k {v = $2 + 0} END {print v}'; }
start_eoq=$(bf_field 'End of job queue')
: >"$OUT/cycles.log"
while :; do
	ticks=0
	for t in /proc/"$pid"/task/*; do [ "$(cat "$t/comm")" = bckfl ] && ticks=$(awk '{print $14 + $15}' "$t/stat"); done
	eoq=$(bf_field 'End of job queue')
	echo "$(date -u +%T) load=$(cut -d' ' -f1 /proc/loadavg) cycles=$(bf_field 'Total cycles') last_us=$(bf_field 'Last cycle$') eoq=$eoq changed=$(bf_field 'System state changed') bckfl_ticks=$ticks" >>"$OUT/cycles.log"
	[ "$((eoq - start_eoq))" -ge "$CYCLES" ] && break
	sleep 10
done
# Right after a cycle ended (the next begins bf_interval later): its plan,
# and its start time, which sift is asked at.
squeue --start -h -o '%i %S %Y' >"$OUT/start.txt"
sdiag >"$OUT/sdiag.txt"
sed -n '/Backfilling/,$p' "$OUT/sdiag.txt" | sed -n 's/.*Last cycle when:.*(\([0-9]*\)).*/\1/p' >"$OUT/snapshot.at"
squeue --json >"$OUT/squeue.json"
cd "$repo"
go build -o "$OUT/siftlab" ./lab/slurm/siftlab
go build -o "$OUT/sift" ./cmd/sift
"$OUT/siftlab" squeue2jobs -in "$OUT/squeue.json" -out "$OUT/jobs.json"
cp "$SLURM_CONF" "$OUT/cluster.conf"
cmd=("$OUT/sift" schedule --nodes "$OUT/cluster.conf" --jobs "$OUT/jobs.json" --at "$(cat "$OUT/snapshot.at")")
"$repo/bench/pair.sh" -n 5 -- "${cmd[@]}" | tee "$OUT/sift-time.txt"
"${cmd[@]}" >"$OUT/sift.out"
tail -1 "$OUT/sift.out"
# Expected starts and planned nodes, job by job.
awk 'NR > 1 && $5 == "PD" && $6 != "N/A" {print $1, $6, $8}' "$OUT/sift.out" | sort >"$OUT/sift.plan"
awk '$2 != "N/A" {print $1, $2, $3}' "$OUT/start.txt" | sort >"$OUT/slurm.plan"
join -a1 -a2 -e NONE -o 0,1.2,1.3,2.2,2.3 "$OUT/sift.plan" "$OUT/slurm.plan" |
	awk '{n++; if ($2 == $4 && $3 == $5) same++} END {printf "%d jobs planned by either: %d with the same start and nodes\n", n, same}'
