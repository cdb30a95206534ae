#!/usr/bin/env bash
# Records every priority scenario file here (prio-NN.json) into recorded/,
# one cluster start per file, and prints each file's wall time. Takes the
# lab's settings from the environment (env.sh); FILES limits it to some
# files (FILES="prio-01.json prio-02.json").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cd "$repo"
bin="${TMPDIR:-/tmp}/siftlab-prio.$$"
go build -o "$bin" ./lab/slurm/siftlab
trap 'rm -f "$bin"' EXIT
files="${FILES:-$(cd "$here" && ls prio-*.json)}"
for f in $files; do
	start=$(date +%s)
	"$bin" priorecord -in "lab/slurm/priority/$f" -out "lab/slurm/priority/recorded/$f" >/dev/null
	echo "$f: $(( $(date +%s) - start )) s"
done
