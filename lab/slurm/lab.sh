#!/usr/bin/env bash
# make lab: install -> start -> record the smoke set -> replay -> stop.
# Recordings go to $LAB_OUT (default $LAB_RUN/out), never into the repo.
#
#   SLURM_SRC=/path/to/slurm make lab
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
. "$HERE/env.sh"
LAB_OUT="${LAB_OUT:-$LAB_RUN/out}"
trap '"$HERE/stop.sh"' EXIT
t() { local s=$SECONDS; echo ">> $*"; "$@"; echo ">> $(( SECONDS - s )) s: $*"; }

[ -x "$SLURM_PREFIX/sbin/slurmctld" ] || t "$HERE/install.sh"
export SLURM_COMMIT="${SLURM_COMMIT:-$(cat "$SLURM_PREFIX/sift-lab-commit" 2>/dev/null || echo unknown)}"
cd "$ROOT"
t go build -o "$LAB_RUN/siftlab" ./lab/slurm/siftlab
mkdir -p "$LAB_OUT/select" "$LAB_OUT/accounting"
# Each record starts the cluster its file needs (start.sh, 16 nodes; the
# accounting file with slurmdbd on the lab's MariaDB).
t "$LAB_RUN/siftlab" record -in lab/slurm/smoke/select.json -out "$LAB_OUT/select/smoke-select.json"
t "$LAB_RUN/siftlab" record -in lab/slurm/smoke/accounting.json -out "$LAB_OUT/accounting/smoke-accounting.json"
t "$HERE/stop.sh"
# Replay: sift's select replay over the new select recording, and the
# accounting recording against the committed one.
t env SIFT_SLURM_REAL="$LAB_OUT/select" go test ./cmd/sift -count=1 -run 'TestSelectMatchesRealSlurm$' -v
t "$LAB_RUN/siftlab" compare lab/slurm/smoke/recorded/smoke-select.json "$LAB_OUT/select/smoke-select.json"
t "$LAB_RUN/siftlab" compare lab/slurm/smoke/recorded/smoke-accounting.json "$LAB_OUT/accounting/smoke-accounting.json"
