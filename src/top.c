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
#include "usym.h"

#define MAX_TEXT_ROWS	20

/*
 * Failed writes of the OpenMetrics file in a row that stop top. A failed
 * write leaves the last good file in place, where a scraper reads its
 * counters as current: a service must not go on like that for long, and
 * its exit status is what a supervisor sees (a unit that fails, systemd's
 * Restart=). Stopping at the first failure would end a run over a brief
 * one (a full disk a log rotation frees); two are survived, the file's
 * timestamp showing its age meanwhile. A run that ends while its last
 * write failed exits 1 too, so that `top -n 1 --openmetrics FILE` cannot
 * fail quietly.
 */
#define OM_FAILURES_MAX	3

struct om_writes {
	__u64 failures;		/* since the start */
	int in_row;		/* since the last success */
	int err;		/* the last failure's -errno */
	struct tt_usyms *usyms;	/* names the places of misuse, --tag-values */
};

static __u64 wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The OpenMetrics file, rewritten whole. A failure is said once until it
 * changes or a write succeeds, and so is the success that ends it.
 */
static void export(const struct tt_session *s, const struct tt_env *env,
		   const struct tt_snapshot *cur, __u64 uncounted,
		   struct om_writes *w)
{
	static struct tt_hist_entry hists[TT_MAX_HISTS];
	static struct tt_tagreport tags;
	struct tt_export x = {
		.procs = cur,
		.hists = hists,
		.uncounted = uncounted,
		.hist_asked = env->histograms,
		.hist_src = s->hist_src,
		.write_failures = w->failures,
	};
	int err;

	memcpy(x.src, s->src, sizeof(x.src));
	if (env->tag_values && !w->usyms)
		w->usyms = tt_session_usyms(s);
	tags.locate = w->usyms ? tt_usyms_locate_ctx : NULL;
	tags.locate_ctx = w->usyms;
	if (env->tag_values && !tt_session_read_tags(s, cur, &tags)) {
		tags.fault_tags_guessed = cur->fault_tags_guessed;
		x.tags = &tags;
		x.uncounted += tt_session_stat(s, TT_STAT_TAGS_FULL) +
			       tt_session_stat(s, TT_STAT_WIDE_FULL);
	}
	if (s->hist_src != TT_SRC_NONE) {
		x.nr_hists = tt_session_read_hists(s, hists);
		x.uncounted += tt_session_stat(s, TT_STAT_HIST_FULL);
	}
	x.written_ns = wall_ns();
	err = tt_openmetrics_file(env->openmetrics, &x);
	if (!err) {
		if (w->in_row)
			fprintf(stderr, "tagtrace: wrote %s again, after %d failed write%s\n",
				env->openmetrics, w->in_row,
				w->in_row > 1 ? "s" : "");
		w->in_row = 0;
		w->err = 0;
		return;
	}
	if (err != w->err)
		fprintf(stderr, "tagtrace: cannot write %s: %s\n",
			env->openmetrics, strerror(-err));
	w->failures++;
	w->in_row++;
	w->err = err;
}

/* 0, TT_OUT_CLOSED when the reader went away, or -errno (tt_out_flush). */
static int report(const struct tt_session *s, const struct tt_env *env,
		  struct tt_snapshot *cur, double interval,
		  struct om_writes *w)
{
	struct tt_uncounted u;

	tt_session_uncounted(s, 1U << TT_STAT_PROC_FULL, &u);
	tt_snapshot_sort(cur);
	if (env->openmetrics)
		export(s, env, cur, tt_uncounted_total(&u), w);
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
	return tt_out_flush(stdout, 0);
}

int tt_top_run(struct tt_session *s, const struct tt_env *env,
	       struct tt_stop *stop)
{
	struct tt_snapshot snaps[2] = {};
	struct om_writes w = {};
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
		out = report(s, env, &snaps[cur], (now - last) / 1e9, &w);
		if (out) {
			err = out < 0 ? out : 0;
			break;
		}
		if (w.in_row >= OM_FAILURES_MAX) {
			fprintf(stderr, "tagtrace: stopping: the last %d writes of %s failed (%s)\n",
				w.in_row, env->openmetrics, strerror(-w.err));
			err = w.err;
			break;
		}
		last = now;
		tt_procs_prune(s, &snaps[cur]);
		cur = !cur;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	if (!err && w.in_row) {
		fprintf(stderr, "tagtrace: %s does not hold the last report: its last write failed (%s)\n",
			env->openmetrics, strerror(-w.err));
		err = w.err;
	}
	tt_session_uncounted(s, 1U << TT_STAT_PROC_FULL, &u);
	fprintf(stderr, "tagtrace: %llu events uncounted (%llu process map full, %llu map busy, %llu runs missed)\n",
		(unsigned long long)tt_uncounted_total(&u),
		(unsigned long long)u.full, (unsigned long long)u.busy,
		(unsigned long long)u.missed);
	tt_usyms_free(w.usyms);
	tt_snapshot_free(&snaps[0]);
	tt_snapshot_free(&snaps[1]);
	return err;
}
