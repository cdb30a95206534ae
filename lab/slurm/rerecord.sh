#!/usr/bin/env bash
# Records the committed select cases again with this lab and compares each
# file with the committed one, then replays them through sift. FRAC
# (default 1: every case) and SEED pick a reproducible sample per file
# (siftlab record -frac/-seed).
#
#   FRAC=0.15 SEED=1 lab/slurm/rerecord.sh [OUT_DIR]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
. "$HERE/env.sh"
OUT="${1:-$LAB_RUN/rerecord}"
FRAC="${FRAC:-1}" SEED="${SEED:-1}"
export SLURM_COMMIT="${SLURM_COMMIT:-$(cat "$SLURM_PREFIX/sift-lab-commit" 2>/dev/null || echo unknown)}"
trap '"$HERE/stop.sh" >/dev/null' EXIT
cd "$ROOT"
go build -o "$LAB_RUN/siftlab" ./lab/slurm/siftlab
mkdir -p "$OUT"
for f in cmd/sift/testdata/select/slurm-real/*.json; do
	b="$(basename "$f")"
	"$LAB_RUN/siftlab" record -frac "$FRAC" -seed "$SEED" -in "$f" -out "$OUT/$b" >/dev/null 2>"$OUT/$b.log" || { echo "$b: record failed: $(tail -1 "$OUT/$b.log")"; continue; }
	"$LAB_RUN/siftlab" compare "$f" "$OUT/$b" || true
done
# And sift's select replay over the new recordings (a sample may hold some
# of the known differences; they are counted, not failed).
SIFT_SLURM_REAL="$OUT" go test ./cmd/sift -count=1 -run 'TestSelectMatchesRealSlurm$' -v | grep -E 'replayed|select_real_test|^(ok|FAIL)'
