// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace top: every interval, the per-process counters BPF keeps (exact
 * whatever the ring buffer does), busiest first. A process that has exited
 * stays listed until it has been idle for PRUNE_AFTER reports, then leaves
 * the map so a long run does not fill it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "commands.h"
#include "openmetrics.h"
#include "table.h"

#define PRUNE_AFTER	5
#define MAX_TEXT_ROWS	20

static bool process_gone(__u32 pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

/* The whole counter map into cur, with deltas against prev. */
static int snapshot(int fd, struct tt_snapshot *cur,
		    struct tt_snapshot *prev)
{
	__u32 key, next, *pkey = NULL;
	struct tt_proc p;
	size_t i;

	tt_snapshot_clear(cur);
	while (!bpf_map_get_next_key(fd, pkey, &next)) {
		key = next;
		pkey = &key;
		if (bpf_map_lookup_elem(fd, &key, &p))
			continue;	/* pruned meanwhile */
		if (tt_snapshot_add(cur, key, &p))
			return -ENOMEM;
	}
	tt_snapshot_diff(cur, prev);
	for (i = 0; i < cur->nr; i++)
		cur->rows[i].gone = process_gone(cur->rows[i].pid);
	return 0;
}

static void prune(int fd, const struct tt_snapshot *cur)
{
	size_t i;

	for (i = 0; i < cur->nr; i++)
		if (cur->rows[i].gone && cur->rows[i].idle >= PRUNE_AFTER)
			bpf_map_delete_elem(fd, &cur->rows[i].pid);
}

/* The OpenMetrics file, rewritten whole; a failure is said once a run. */
static void export(const struct tt_session *s, const struct tt_env *env,
		   const struct tt_snapshot *cur, __u64 uncounted)
{
	static struct tt_hist_entry hists[TT_MAX_HISTS];
	static int last_err;
	struct tt_export x = {
		.procs = cur,
		.hists = hists,
		.uncounted = uncounted,
		.hist_src = s->hist_src,
	};
	int err;

	memcpy(x.src, s->src, sizeof(x.src));
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

static void report(const struct tt_session *s, const struct tt_env *env,
		   struct tt_snapshot *cur, double interval)
{
	__u64 full = tt_session_stat(s, TT_STAT_PROC_FULL);

	tt_snapshot_sort(cur);
	if (env->openmetrics)
		export(s, env, cur, full);
	if (env->json) {
		tt_table_json(stdout, cur, s->src, tt_now_ns(), interval, full);
	} else {
		char when[16];

		printf("\n%s  %zu processes",
		       tt_clock_hms(time(NULL), when, sizeof(when)), cur->nr);
		if (full)
			printf("  %llu events uncounted (process map full)",
			       (unsigned long long)full);
		putchar('\n');
		tt_table_text(stdout, cur, s->src, MAX_TEXT_ROWS);
	}
	fflush(stdout);
}

int tt_top_run(struct tt_session *s, const struct tt_env *env,
	       struct tt_stop *stop)
{
	struct tt_snapshot snaps[2] = {};
	int fd = tt_session_procs_fd(s), cur = 0, err = 0;
	long reports = 0;
	__u64 last = tt_now_ns(), due = last;

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
		err = snapshot(fd, &snaps[cur], &snaps[!cur]);
		if (err) {
			fprintf(stderr, "tagtrace: out of memory reading counters\n");
			break;
		}
		report(s, env, &snaps[cur], (now - last) / 1e9);
		last = now;
		prune(fd, &snaps[cur]);
		cur = !cur;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	fprintf(stderr, "tagtrace: %llu events uncounted (process map full)\n",
		(unsigned long long)tt_session_stat(s, TT_STAT_PROC_FULL));
	tt_snapshot_free(&snaps[0]);
	tt_snapshot_free(&snaps[1]);
	return err;
}
