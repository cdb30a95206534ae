# Shared settings of the lab scripts (sourced, not run).
SLURM_PREFIX="${SLURM_PREFIX:-$HOME/.cache/sift-lab/slurm}"
LAB_RUN="${LAB_RUN:-${TMPDIR:-/tmp}/sift-lab-$(id -un)}"
CTLD_PORT="${CTLD_PORT:-16817}"
DBD_PORT="${DBD_PORT:-16819}"
DB_PORT="${DB_PORT:-16306}"
# slurmd n listens on SLURMD_PORT+n in the default cluster (a case file
# names its own ports).
SLURMD_PORT="${SLURMD_PORT:-17000}"
# auth/slurm binds its credential sockets in /run/slurm, /run/slurmctld and
# /run/slurmdbd, which only root may create; an unprivileged lab uses
# auth/munge with a private munged whose socket is under $LAB_RUN.
if [ "$(id -u)" = 0 ]; then LAB_AUTH="${LAB_AUTH:-slurm}"; else LAB_AUTH="${LAB_AUTH:-munge}"; fi
MUNGE_SOCKET="$LAB_RUN/munge/munge.socket"
export SLURM_CONF="$LAB_RUN/etc/slurm.conf"
# /usr/sbin for mariadbd and munged, which a user's PATH may lack.
export PATH="$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH:/usr/sbin"
LAB_USER="$(id -un)"
