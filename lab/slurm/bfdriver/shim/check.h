/*
 * A stand-in for libcheck's <check.h>, enough to compile and run Slurm's
 * testsuite/slurm_unit/backfill/backfill_test.c without libcheck: each test
 * runs in its own child process, as libcheck's default fork mode does, so
 * the tests do not share the job list.
 */
#ifndef SIFT_BFDRIVER_CHECK_H
#define SIFT_BFDRIVER_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CK_ENV 0
#define CK_MAX_TESTS 32

typedef void (*ck_test_fn)(int);
typedef struct {
	ck_test_fn fn[CK_MAX_TESTS];
	const char *name[CK_MAX_TESTS];
	int n;
} TCase;
typedef struct {
	TCase *tc;
} Suite;
typedef struct {
	Suite *s;
	int failed;
} SRunner;

#define START_TEST(n) static void n(int _ck_i __attribute__((unused))) {
#define END_TEST }
#define ck_abort_msg(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define ck_assert_msg(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#define tcase_add_test(tc, f) ck_add((tc), (f), #f)

static inline Suite *suite_create(const char *n) { (void) n; return calloc(1, sizeof(Suite)); }
static inline TCase *tcase_create(const char *n) { (void) n; return calloc(1, sizeof(TCase)); }
static inline void tcase_set_timeout(TCase *tc, double t) { (void) tc; (void) t; }
static inline void suite_add_tcase(Suite *s, TCase *tc) { s->tc = tc; }
static inline SRunner *srunner_create(Suite *s) { SRunner *r = calloc(1, sizeof(SRunner)); r->s = s; return r; }
static inline void srunner_free(SRunner *r) { free(r); }
static inline int srunner_ntests_failed(SRunner *r) { return r->failed; }
static inline void ck_add(TCase *tc, ck_test_fn f, const char *name)
{
	if (tc->n < CK_MAX_TESTS) {
		tc->fn[tc->n] = f;
		tc->name[tc->n++] = name;
	}
}
static inline void srunner_run_all(SRunner *r, int mode)
{
	(void) mode;
	for (int i = 0; i < r->s->tc->n; i++) {
		int st = 0;
		fflush(stdout);
		pid_t p = fork();
		if (p == 0) {
			r->s->tc->fn[i](0);
			exit(0);
		}
		waitpid(p, &st, 0);
		int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		printf("%s: %s\n", r->s->tc->name[i], ok ? "Passed" : "Failed");
		if (!ok)
			r->failed++;
	}
}

#endif
