// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace tags: every interval, per process, the tag values its pointers
 * carried and the system calls that brought them to the kernel, from maps
 * BPF keeps (exact whatever a ring buffer would do), since tagtrace started.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "clock.h"
#include "commands.h"
#include "tagfmt.h"

#define MAX_TEXT_ROWS	20

int tt_tags_run(struct tt_session *s, const struct tt_env *env,
		struct tt_stop *stop)
{
	struct tt_tagreport rep = {};
	__u64 last = tt_now_ns(), due = last;
	long reports = 0;
	int err = 0;

	fprintf(stderr, "tagtrace: counting tag values, reporting every %g s; Ctrl-C to stop\n",
		env->interval);
	for (;;) {
		__u64 now, uncounted;

		due += (__u64)(env->interval * 1e9);
		tt_stop_wait(stop, -1, due);
		now = tt_now_ns();
		if (due < now)	/* a slow report: do not hurry the next */
			due = now;
		/* A signal ends the run with one last, partial, report. */
		err = tt_session_read_tags(s, &rep);
		if (err) {
			fprintf(stderr, "tagtrace: cannot read the tag maps: %s\n",
				strerror(-err));
			break;
		}
		uncounted = tt_session_stat(s, TT_STAT_PROC_FULL) +
			    tt_session_stat(s, TT_STAT_TAGS_FULL);
		if (env->json) {
			tt_tags_json(stdout, &rep, s->src, now,
				     (now - last) / 1e9, uncounted);
		} else {
			char when[16];

			printf("\n%s  %zu processes",
			       tt_clock_hms(time(NULL), when, sizeof(when)),
			       rep.nr);
			if (uncounted)
				printf("  %llu events uncounted (a map full)",
				       (unsigned long long)uncounted);
			putchar('\n');
			tt_tags_text(stdout, &rep, s->src, MAX_TEXT_ROWS);
		}
		fflush(stdout);
		last = now;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	tt_tagreport_free(&rep);
	return err;
}
