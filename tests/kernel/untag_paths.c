// SPDX-License-Identifier: GPL-2.0
/*
 * untag_paths N: for each uaccess path (tests/lib/uaccess_paths.h), one
 * tagged process makes N calls with tagged pointers, then N with the same
 * pointers untagged. The tagged_addr_untag event must fire once for each
 * user-limit check that strips a tag: N times the path's checks (the
 * table in uaccess_paths.h names them) with each tagged value, and none
 * for anything else (the untagged calls, __get_user()/__put_user() after
 * a check).
 *
 * Each path runs in a process of its own, which prints, for
 * tests/kernel/trace-guest.sh, one line a tagged pointer:
 *   untag PATH PID TAGGED WANT
 * and one with what all the process's events must add up to:
 *   untag_total PATH PID WANT
 * Exits non-zero if a call did not work.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "../lib/tagging.h"
#include "../lib/uaccess_paths.h"

/* In a child: n calls tagged, n untagged, then what to expect. */
static int run_path(const struct uaccess_path *up, int n, unsigned long tag)
{
	void *p;
	struct uctx c;
	int k;

	if (uctx_init(&c) ||
	    prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0))
		return 1;
	p = tag_ptr(c.obj, tag);
	for (k = 0; k < n; k++)
		if (up->call(&c, p) < 0)
			return 2;
	for (k = 0; k < n; k++)
		if (up->call(&c, c.obj) < 0)
			return 3;
	printf("untag %s %d %p %d\n", up->name, getpid(), p, n * up->checks);
	if (up->off2)
		printf("untag %s %d %p %d\n", up->name, getpid(),
		       (char *)p + up->off2, n * up->checks2);
	printf("untag_total %s %d %d\n", up->name, getpid(),
	       n * (up->checks + up->checks2));
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0, bad = 0, i, status;

	if (n <= 0) {
		fprintf(stderr, "usage: untag_paths N\n");
		return 2;
	}
	for (i = 0; i < NR_UACCESS_PATHS; i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			status = run_path(&uaccess_paths[i], n, 0x10 + i);
			fflush(stdout);
			_exit(status);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "untag_paths: %s failed (status %#x)\n",
				uaccess_paths[i].name, status);
			bad = 1;
		}
	}
	return bad;
}
