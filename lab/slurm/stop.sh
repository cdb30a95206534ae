#!/usr/bin/env bash
# Stops every daemon the lab started (slurmd, slurmctld, slurmdbd, MariaDB,
# munged), by the pids recorded in $LAB_RUN/pids. Safe to run when nothing
# runs.
set -euo pipefail
. "$(dirname "$0")/env.sh"
shopt -s nullglob
stop_pid() { # name pidfile
	local pid
	pid="$(cat "$2" 2>/dev/null || true)"
	if [ -n "$pid" ] && { kill "$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null; }; then
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
		echo "stopped $1 (pid $pid)"
	fi
	rm -f "$2"
}
[ -d "$LAB_RUN/pids" ] || exit 0
# Cancel the lab's jobs first, so no slurmstepd or job outlives its slurmd.
if [ -f "$LAB_RUN/pids/slurmctld.pid" ] && kill -0 "$(cat "$LAB_RUN/pids/slurmctld.pid")" 2>/dev/null; then
	scancel --full -u "$LAB_USER" 2>/dev/null || true
	for _ in $(seq 100); do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
		sleep 0.1
	done
fi
# Signal every slurmd first, then wait for each: one at a time took ~2 s apiece.
for f in "$LAB_RUN"/pids/slurmd.*.pid; do
	pid="$(cat "$f" 2>/dev/null || true)"
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
done
for f in "$LAB_RUN"/pids/slurmd.*.pid; do n="${f##*/slurmd.}"; stop_pid "slurmd ${n%.pid}" "$f"; done
stop_pid slurmctld "$LAB_RUN/pids/slurmctld.pid"
stop_pid slurmdbd "$LAB_RUN/pids/slurmdbd.pid"
stop_pid mariadb "$LAB_RUN/pids/mariadb.pid"
stop_pid munged "$LAB_RUN/pids/munged.pid"
