#!/usr/bin/env bash
# Installs what the sift Slurm lab needs on a Debian 12 machine: build
# dependencies, MariaDB and munge (the unprivileged lab's auth) from Debian's
# packages, then Slurm built from the source tree the user points at
# (SLURM_SRC) into a prefix of its own.
# Tested with Slurm commit 284c3b95 (26.11.0rc1).
#
#   SLURM_SRC=/path/to/slurm [SLURM_PREFIX=~/.cache/sift-lab/slurm] lab/slurm/install.sh
#
# Skips apt when SKIP_APT=1 (packages already there, or no root). Never
# writes into the sift repository.
set -euo pipefail
: "${SLURM_SRC:?set SLURM_SRC to a Slurm source tree (tested: commit 284c3b95, 26.11.0rc1)}"
SLURM_PREFIX="${SLURM_PREFIX:-$HOME/.cache/sift-lab/slurm}"
SLURM_BUILD="${SLURM_BUILD:-$SLURM_PREFIX.build}"
JOBS="${JOBS:-$(nproc)}"

if [ "${SKIP_APT:-0}" != 1 ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
		build-essential autoconf automake libtool pkg-config python3 \
		libjson-c-dev libyaml-dev libmariadb-dev mariadb-server mariadb-client \
		libssl-dev libhwloc-dev liblz4-dev libpam0g-dev libreadline-dev \
		libmunge-dev libdbus-1-dev libjwt-dev munge
fi

if [ -x "$SLURM_PREFIX/sbin/slurmctld" ] && [ "${REBUILD:-0}" != 1 ]; then
	echo "install: $SLURM_PREFIX/sbin/slurmctld exists (REBUILD=1 to build again)"
	exit 0
fi
mkdir -p "$SLURM_BUILD"
cd "$SLURM_BUILD"
# Out of tree, so the user's source tree stays untouched.
nice "$SLURM_SRC/configure" --prefix="$SLURM_PREFIX" --sysconfdir="$SLURM_PREFIX/etc" \
	--enable-multiple-slurmd --disable-debug >configure.log 2>&1 || { tail -30 configure.log; exit 1; }
nice make -j"$JOBS" >make.log 2>&1 || { tail -40 make.log; exit 1; }
make install >install.log 2>&1 || { tail -40 install.log; exit 1; }
# AuthType=auth/slurm is built only when configure found libjwt.
[ -e "$SLURM_PREFIX/lib/slurm/auth_slurm.so" ] || { echo "install: auth_slurm.so was not built (libjwt-dev missing?)" >&2; exit 1; }
# The commit recordings name: the tree's git HEAD, else SLURM_COMMIT.
commit="$(git -C "$SLURM_SRC" rev-parse HEAD 2>/dev/null || echo "${SLURM_COMMIT:-unknown}")"
[ "$commit" != unknown ] || echo "install: $SLURM_SRC is no git tree and SLURM_COMMIT is unset: recordings will name commit \"unknown\" (set SLURM_COMMIT, or write it to $SLURM_PREFIX/sift-lab-commit)" >&2
echo "$commit" >"$SLURM_PREFIX/sift-lab-commit"
"$SLURM_PREFIX/sbin/slurmctld" -V
