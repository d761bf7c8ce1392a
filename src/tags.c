// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace tags: every interval, per process, the tag values its pointers
 * carried and the system calls that brought them to the kernel, from maps
 * BPF keeps (exact whatever a ring buffer would do), busiest in the
 * interval first. The processes are top's (procs.c): exited ones leave
 * every map after TT_PRUNE_AFTER idle reports, so that a long run of
 * short-lived processes never fills them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "clock.h"
#include "commands.h"
#include "out.h"
#include "procs.h"
#include "tagfmt.h"
#include "usym.h"

#define MAX_TEXT_ROWS	20

int tt_tags_run(struct tt_session *s, const struct tt_env *env,
		struct tt_stop *stop)
{
	struct tt_snapshot snaps[2] = {};
	struct tt_tagreport rep = {};
	__u64 last = tt_now_ns(), due = last;
	long reports = 0;
	int cur = 0, err = 0;

	rep.locate_ctx = tt_session_usyms(s);
	if (!rep.locate_ctx) {
		fputs("tagtrace: out of memory\n", stderr);
		return -ENOMEM;
	}
	rep.locate = tt_usyms_locate_ctx;

	fprintf(stderr, "tagtrace: counting tag values, reporting every %g s; Ctrl-C to stop\n",
		env->interval);
	for (;;) {
		struct tt_uncounted u;
		__u64 now;

		due += (__u64)(env->interval * 1e9);
		tt_stop_wait(stop, -1, due);
		now = tt_now_ns();
		if (due < now)	/* a slow report: do not hurry the next */
			due = now;
		/* A signal ends the run with one last, partial, report. */
		err = tt_procs_snapshot(s, &snaps[cur], &snaps[!cur],
					env->verbose);
		if (!err)
			err = tt_session_read_tags(s, &snaps[cur], &rep);
		if (err) {
			fprintf(stderr, "tagtrace: cannot read the tag maps: %s\n",
				strerror(-err));
			break;
		}
		rep.fault_tags_guessed = snaps[cur].fault_tags_guessed;
		tt_session_uncounted(s, 1U << TT_STAT_PROC_FULL |
					     1U << TT_STAT_TAGS_FULL |
					     1U << TT_STAT_WIDE_FULL, &u);
		if (env->json) {
			tt_tags_json(stdout, &rep, s->src, now,
				     (now - last) / 1e9,
				     tt_uncounted_total(&u));
		} else {
			char when[16];

			printf("\n%s  %zu processes",
			       tt_clock_hms(time(NULL), when, sizeof(when)),
			       rep.nr);
			tt_uncounted_text(stdout, "a map full", u.full, u.busy,
					  u.missed);
			putchar('\n');
			tt_tags_text(stdout, &rep, s->src, MAX_TEXT_ROWS);
		}
		err = tt_out_flush(stdout, 0);
		if (err) {
			err = err < 0 ? err : 0;
			break;
		}
		last = now;
		tt_procs_prune(s, &snaps[cur]);
		cur = !cur;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	tt_usyms_free(rep.locate_ctx);
	tt_tagreport_free(&rep);
	tt_snapshot_free(&snaps[0]);
	tt_snapshot_free(&snaps[1]);
	return err;
}
