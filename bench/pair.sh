#!/usr/bin/env bash
# pair.sh times a command as a whole process over several runs, alone or in
# turn with a second one (A B A B ...), with /usr/bin/time, and prints each
# figure's minimum, median and maximum, and with --vs the ratio A/B taken
# pair by pair, so a comparison holds while the machine's speed drifts.
#
#   bench/pair.sh [-n RUNS] [--warmup N] [--timeout SECONDS] [--vs 'COMMAND_B'] -- COMMAND_A [ARG ...]
#
# RUNS counted runs of each command (default 5) follow N runs not counted
# (default 1). --timeout bounds each run (default: none). COMMAND_B is one
# string split as a shell splits words. The commands' output is thrown
# away. BENCHMARKS.md quotes its rows.
set -euo pipefail

runs=5 warmup=1 limit= vs=
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--vs) vs=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "pair.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "pair.sh: no command after --" >&2
	exit 2
fi
[ -x /usr/bin/time ] || { echo "pair.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
a=("$@")
b=()
[ -n "$vs" ] && read -r -a b <<<"$vs"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# once runs one command and appends "user sys wall peakKB" to file $1.
once() {
	local out=$1
	shift
	local pre=()
	[ -n "$limit" ] && pre=(timeout "$limit")
	/usr/bin/time -o "$dir/t" -f '%U %S %e %M' "${pre[@]}" "$@" >/dev/null 2>&1 || true
	tail -1 "$dir/t" >>"$out"
}

for ((i = 0; i < warmup + runs; i++)); do
	f=/dev/null
	[ "$i" -ge "$warmup" ] && f=$dir/a
	once "$f" "${a[@]}"
	if [ ${#b[@]} -gt 0 ]; then
		[ "$i" -ge "$warmup" ] && f=$dir/b
		once "$f" "${b[@]}"
	fi
done

echo "A: ${a[*]}"
[ ${#b[@]} -gt 0 ] && echo "B: ${b[*]}"
echo "$runs counted runs each after $warmup warm-up; min median max"
# stats prints min, median and max of column $2 of file $1, scaled by $3.
stats() {
	awk -v c="$2" -v s="$3" '{print $c * s}' "$1" | sort -g |
		awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", v[1], m, v[NR]}'
}
row() {
	printf '%-10s A %s' "$1" "$(stats "$dir/a" "$2" "$3")"
	[ -f "$dir/b" ] && printf '   B %s' "$(stats "$dir/b" "$2" "$3")"
	echo
}
row "user s" 1 1
row "sys s" 2 1
row "wall s" 3 1
row "peak MiB" 4 0.0009765625
if [ -f "$dir/b" ]; then
	# Ratios A/B pair by pair: CPU (user+sys) and wall.
	paste "$dir/a" "$dir/b" | awk '{c = $5 + $6; print (c > 0 ? ($1 + $2) / c : 0), ($7 > 0 ? $3 / $7 : 0)}' >"$dir/r"
	echo "A/B cpu   $(stats "$dir/r" 1 1)"
	echo "A/B wall  $(stats "$dir/r" 2 1)"
fi
