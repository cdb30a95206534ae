#!/bin/bash
# Builds Slurm's backfill driver (build.sh) and records it over the
# hand-written cases and N (default 2000) random inputs of seed SEED
# (default 1) into sched/testdata/bfdriver/, which
# `go test ./sched -run TestSlurmBackfillDriver` replays.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
. "$here/../env.sh"
SLURM_BUILD="${SLURM_BUILD:-$SLURM_PREFIX.build}"
BFDRIVER_OUT="${BFDRIVER_OUT:-$LAB_RUN/bfdriver}"
N="${N:-2000}" SEED="${SEED:-1}"
export SLURM_BUILD BFDRIVER_OUT
"$here/build.sh"
cd "$repo"
go build -o "$BFDRIVER_OUT/siftlab" ./lab/slurm/siftlab
out=sched/testdata/bfdriver
mkdir -p "$out"
"$BFDRIVER_OUT/siftlab" bfrecord -driver "$BFDRIVER_OUT/backfill-test" -plugins "$SLURM_BUILD/src/plugins" \
	-in lab/slurm/bfdriver/cases.txt -out "$out/slurm-tests.txt"
"$BFDRIVER_OUT/siftlab" bfrecord -driver "$BFDRIVER_OUT/backfill-test" -plugins "$SLURM_BUILD/src/plugins" \
	-n "$N" -seed "$SEED" -out "$BFDRIVER_OUT/random-$SEED.txt"
gzip -9 -n -c "$BFDRIVER_OUT/random-$SEED.txt" >"$out/random-$SEED.txt.gz"
ls -l "$out"
