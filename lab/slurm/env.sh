# Shared settings of the lab scripts (sourced, not run).
SLURM_PREFIX="${SLURM_PREFIX:-$HOME/.cache/sift-lab/slurm}"
LAB_RUN="${LAB_RUN:-${TMPDIR:-/tmp}/sift-lab-$(id -un)}"
CTLD_PORT="${CTLD_PORT:-16817}"
DBD_PORT="${DBD_PORT:-16819}"
DB_PORT="${DB_PORT:-16306}"
export SLURM_CONF="$LAB_RUN/etc/slurm.conf"
export PATH="$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH"
LAB_USER="$(id -un)"
