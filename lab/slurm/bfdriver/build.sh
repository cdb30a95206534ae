#!/bin/bash
# Builds Slurm's standalone backfill driver (testsuite/slurm_unit/backfill:
# backfill_test.c and dummy_functions.c around the real backfill.c,
# job_scheduler.c and node_scheduler.c) out of a Slurm source tree and its
# configured, built build tree, as its Makefile.am does, with sift's shim
# (shim/): a <check.h> stand-in, so libcheck is not needed, and a fixed
# clock and one-line-per-job printer (shim/bfdriver.c). Nothing of Slurm's
# is copied into this repository; the binary goes to $BFDRIVER_OUT.
#
#   SLURM_SRC=/path/to/slurm SLURM_BUILD=/path/to/build lab/slurm/bfdriver/build.sh
#
# Then `$BFDRIVER_OUT/backfill-test` with no arguments runs Slurm's own
# check tests (test_backfill_1/2/3, lic_1/2), and run.sh feeds it inputs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../env.sh"
SLURM_SRC="${SLURM_SRC:?set SLURM_SRC to the Slurm source tree}"
SLURM_BUILD="${SLURM_BUILD:-$SLURM_PREFIX.build}"
BFDRIVER_OUT="${BFDRIVER_OUT:-$LAB_RUN/bfdriver}"
[ -f "$SLURM_BUILD/src/api/.libs/libslurmfull.so" ] || {
	echo "build.sh: no $SLURM_BUILD/src/api/.libs/libslurmfull.so: build Slurm first (lab/slurm/install.sh)" >&2
	exit 1
}
mkdir -p "$BFDRIVER_OUT"
t="$SLURM_SRC/testsuite/slurm_unit/backfill"
bf="$SLURM_SRC/src/plugins/sched/backfill"
cflags=(-DHAVE_CONFIG_H -D_ISO99_SOURCE -I"$here/shim" -I"$SLURM_BUILD" -I"$SLURM_BUILD/slurm"
	-I"$SLURM_SRC" -I"$bf" -g -O2 -pthread -Wno-deprecated-declarations)
objs=()
for src in "$t/backfill_test.c" "$t/dummy_functions.c" "$bf/backfill.c" "$bf/oracle.c" \
	"$SLURM_SRC/src/slurmctld/job_scheduler.c" "$SLURM_SRC/src/slurmctld/licenses.c" \
	"$SLURM_SRC/src/slurmctld/node_scheduler.c" "$here/shim/bfdriver.c"; do
	o="$BFDRIVER_OUT/$(basename "$src" .c).o"
	extra=()
	[ "$(basename "$src")" = backfill_test.c ] && extra=(-Dlist_for_each=bfdriver_list_for_each)
	gcc "${cflags[@]}" "${extra[@]}" -c "$src" -o "$o"
	objs+=("$o")
done
libs="$SLURM_BUILD/src/api/.libs"
gcc -pthread -o "$BFDRIVER_OUT/backfill-test" "${objs[@]}" -Wl,-z,lazy \
	-Wl,--unresolved-symbols=ignore-all -Wl,--allow-multiple-definition \
	-Wl,-rpath="$libs" -Wl,--export-dynamic -L"$libs" -lslurmfull -ldl -lpthread
# Slurm's own check tests, on the testsuite's cluster and licenses.
mkdir -p "$BFDRIVER_OUT/check"
p="$SLURM_BUILD/src/plugins"
cat >"$BFDRIVER_OUT/check/slurm.conf" <<CONF
ClusterName=test
SlurmctldHost=localhost
AuthType=""
PluginDir=$p/select/cons_tres/.libs:$p/topology/flat/.libs:$p/hash/k12/.libs:$p/tls/none/.libs:$p/cred/munge/.libs:$p/certgen/script/.libs:$p/auth/none/.libs
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
Licenses=lic1:1,lic2:6
SchedulerParameters=bf_licenses
NodeName=node[01-32] NodeAddr=localhost RealMemory=2000 CoresPerSocket=4
CONF
"$BFDRIVER_OUT/backfill-test" -c "$BFDRIVER_OUT/check" 2>/dev/null | grep -E ': (Passed|Failed)$' || true
echo "$BFDRIVER_OUT/backfill-test"
