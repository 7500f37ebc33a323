/* tests/unit/test-bootstrap.h: shared by the two halves of test-bootstrap
 * (in-process checks in test-bootstrap.c, real jobs in test-bootstrap-jobs.c). */
#ifndef TEST_BOOTSTRAP_H
#define TEST_BOOTSTRAP_H

/* Prints "ok - <what>" or "FAIL - <what>" and counts failures. */
void tb_check(int ok, const char *fmt, ...) __attribute__((__format__(__printf__, 2, 3)));

/* Number of failed checks so far. */
extern int tb_failures;

/* Runs the end-to-end jobs through the built gasnetrun_ibv.  Returns 0, or
 * -1 after printing "SKIP: ..." when the launcher or the helper program is
 * missing. */
int tb_run_jobs(void);

#endif /* TEST_BOOTSTRAP_H */
