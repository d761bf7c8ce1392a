// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace top: every interval, the per-process counters BPF keeps (exact
 * whatever the ring buffer does), busiest in the interval first; exited
 * processes are pruned as procs.c says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "clock.h"
#include "commands.h"
#include "openmetrics.h"
#include "out.h"
#include "procs.h"
#include "table.h"
#include "tagfmt.h"

#define MAX_TEXT_ROWS	20

/* The OpenMetrics file, rewritten whole; a failure is said once a run. */
static void export(const struct tt_session *s, const struct tt_env *env,
		   const struct tt_snapshot *cur, __u64 uncounted)
{
	static struct tt_hist_entry hists[TT_MAX_HISTS];
	static struct tt_tagreport tags;
	static int last_err;
	struct tt_export x = {
		.procs = cur,
		.hists = hists,
		.uncounted = uncounted,
		.hist_asked = env->histograms,
		.hist_src = s->hist_src,
	};
	int err;

	memcpy(x.src, s->src, sizeof(x.src));
	if (env->tag_values && !tt_session_read_tags(s, cur, &tags)) {
		x.tags = &tags;
		x.uncounted += tt_session_stat(s, TT_STAT_TAGS_FULL) +
			       tt_session_stat(s, TT_STAT_WIDE_FULL);
	}
	if (s->hist_src != TT_SRC_NONE) {
		x.nr_hists = tt_session_read_hists(s, hists);
		x.uncounted += tt_session_stat(s, TT_STAT_HIST_FULL);
	}
	err = tt_openmetrics_file(env->openmetrics, &x);
	if (err && err != last_err)
		fprintf(stderr, "tagtrace: cannot write %s: %s\n",
			env->openmetrics, strerror(-err));
	last_err = err;
}

/* 0, TT_OUT_CLOSED when the reader went away, or -errno (tt_out_flush). */
static int report(const struct tt_session *s, const struct tt_env *env,
		  struct tt_snapshot *cur, double interval)
{
	struct tt_uncounted u;

	tt_session_uncounted(s, 1U << TT_STAT_PROC_FULL, &u);
	tt_snapshot_sort(cur);
	if (env->openmetrics)
		export(s, env, cur, tt_uncounted_total(&u));
	if (env->json) {
		tt_table_json(stdout, cur, s->src, tt_now_ns(), interval,
			      tt_uncounted_total(&u));
	} else {
		char when[16];

		printf("\n%s  %zu processes",
		       tt_clock_hms(time(NULL), when, sizeof(when)), cur->nr);
		tt_uncounted_text(stdout, "process map full", u.full, u.busy,
				  u.missed);
		putchar('\n');
		tt_table_text(stdout, cur, s->src, MAX_TEXT_ROWS);
	}
	return tt_out_flush(stdout);
}

int tt_top_run(struct tt_session *s, const struct tt_env *env,
	       struct tt_stop *stop)
{
	struct tt_snapshot snaps[2] = {};
	int cur = 0, err = 0, out;
	long reports = 0;
	__u64 last = tt_now_ns(), due = last;
	struct tt_uncounted u;

	fprintf(stderr, "tagtrace: reporting every %g s; Ctrl-C to stop\n",
		env->interval);
	while (!err) {
		__u64 now;

		due += (__u64)(env->interval * 1e9);
		tt_stop_wait(stop, -1, due);
		now = tt_now_ns();
		if (due < now)	/* a slow report: do not hurry the next */
			due = now;
		/* A signal ends the run with one last, partial, report. */
		err = tt_procs_snapshot(s, &snaps[cur], &snaps[!cur],
					env->verbose);
		if (err) {
			fprintf(stderr, "tagtrace: cannot read the counters: %s\n",
				strerror(-err));
			break;
		}
		out = report(s, env, &snaps[cur], (now - last) / 1e9);
		if (out) {
			err = out < 0 ? out : 0;
			break;
		}
		last = now;
		tt_procs_prune(s, &snaps[cur]);
		cur = !cur;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	tt_session_uncounted(s, 1U << TT_STAT_PROC_FULL, &u);
	fprintf(stderr, "tagtrace: %llu events uncounted (%llu process map full, %llu map busy, %llu runs missed)\n",
		(unsigned long long)tt_uncounted_total(&u),
		(unsigned long long)u.full, (unsigned long long)u.busy,
		(unsigned long long)u.missed);
	tt_snapshot_free(&snaps[0]);
	tt_snapshot_free(&snaps[1]);
	return err;
}
