/*
 * sift's additions to Slurm's backfill test driver (backfill_test.c):
 *
 * - time() returns BFDRIVER_NOW (default 1000000000) on every call, so a
 *   run is deterministic: the start and end times the driver prints do not
 *   depend on when, or how fast, it ran. Calls from libslurmfull resolve
 *   here too (the driver is linked with -export-dynamic).
 * - backfill_test.c is compiled with -Dlist_for_each=bfdriver_list_for_each,
 *   and it calls list_for_each only to print the jobs after the pass; this
 *   prints each job in one compact line instead, with the start time of a
 *   pending job that got no planned nodes too, which the driver's own
 *   printer leaves out:
 *     <job_id> R <start-now> <end-now> <nodes>
 *     <job_id> P <start-now|-> <planned nodes|->
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

time_t time(time_t *t)
{
	static time_t now;

	if (!now) {
		char *e = getenv("BFDRIVER_NOW");
		now = e ? (time_t) strtoll(e, NULL, 10) : (time_t) 1000000000;
	}
	if (t)
		*t = now;
	return now;
}

static int _print(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	time_t now = time(NULL);

	(void) arg;
	if (IS_JOB_RUNNING(job_ptr)) {
		char *nodes = bitmap2node_name(job_ptr->node_bitmap);
		printf("%u R %ld %ld %s\n", job_ptr->job_id,
		       (long) (job_ptr->start_time - now),
		       (long) (job_ptr->end_time - now), nodes);
		xfree(nodes);
	} else if (job_ptr->start_time) {
		printf("%u P %ld %s\n", job_ptr->job_id,
		       (long) (job_ptr->start_time - now),
		       job_ptr->sched_nodes ? job_ptr->sched_nodes : "-");
	} else {
		printf("%u P - %s\n", job_ptr->job_id,
		       job_ptr->sched_nodes ? job_ptr->sched_nodes : "-");
	}
	return 0;
}

int bfdriver_list_for_each(list_t *l, ListForF f, void *arg)
{
	(void) f;
	int n = list_for_each(l, _print, arg);
	fflush(stdout);
	return n;
}
