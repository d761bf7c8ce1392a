// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace top: every interval, the per-process counters BPF keeps (exact
 * whatever the ring buffer does), busiest first. BPF keys them by pid and
 * start time, so a reused pid is a new row. A process that has exited
 * stays listed until it has been idle for PRUNE_AFTER reports, then leaves
 * the map so a long run does not fill it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "commands.h"
#include "openmetrics.h"
#include "table.h"
#include "tagfmt.h"

#define PRUNE_AFTER	5
#define MAX_TEXT_ROWS	20

/*
 * BPF marks a process whose last thread exited; a process it never saw
 * exit (it exited while the programs were being attached) is gone when its
 * pid is, and a pid in use since may be another process's.
 */
static bool process_gone(const struct tt_row *r)
{
	return r->gone || (kill(r->pid, 0) && errno == ESRCH);
}

#define BATCH 1024	/* entries a read; a hash bucket holds fewer */

/*
 * The counter map, BATCH entries a system call (BPF_MAP_LOOKUP_BATCH,
 * Linux 5.6). -EINVAL or -ENOTSUPP (524) on the first call: the kernel
 * has no batch reads for hash maps.
 */
static int read_batch(int fd, struct tt_snapshot *cur)
{
	static struct tt_proc_key keys[BATCH];
	static struct tt_proc vals[BATCH];
	struct tt_proc_key token;	/* a bucket index; key-sized to be safe */
	void *in = NULL;
	__u32 n, i;
	int err;

	do {
		n = BATCH;
		err = bpf_map_lookup_batch(fd, in, &token, keys, vals, &n,
					   NULL);
		if (err && errno != ENOENT)
			return -errno;
		for (i = 0; i < n; i++)
			if (tt_snapshot_add(cur, &keys[i], &vals[i]))
				return -ENOMEM;
		in = &token;
	} while (!err);
	return 0;
}

/* The same, one key at a time, for kernels without batch reads. */
static int read_iter(int fd, struct tt_snapshot *cur)
{
	struct tt_proc_key key, next, *pkey = NULL;
	struct tt_proc p;

	while (!bpf_map_get_next_key(fd, pkey, &next)) {
		key = next;
		pkey = &key;
		if (bpf_map_lookup_elem(fd, &key, &p))
			continue;	/* pruned meanwhile */
		if (tt_snapshot_add(cur, &key, &p))
			return -ENOMEM;
	}
	return 0;
}

/* The whole counter map into cur, with deltas against prev. */
static int snapshot(int fd, struct tt_snapshot *cur,
		    struct tt_snapshot *prev, bool verbose)
{
	static int batch = -1;	/* unknown yet */
	size_t i;
	int err;

	tt_snapshot_clear(cur);
	err = batch ? read_batch(fd, cur) : read_iter(fd, cur);
	if (batch < 0) {
		batch = err != -EINVAL && err != -524;
		if (verbose)
			fprintf(stderr, "tagtrace: reading counters %s\n",
				batch ? "in batches" : "one key at a time");
		if (!batch) {
			tt_snapshot_clear(cur);
			err = read_iter(fd, cur);
		}
	}
	if (err)
		return err;
	tt_snapshot_diff(cur, prev);
	for (i = 0; i < cur->nr; i++)
		cur->rows[i].gone = process_gone(&cur->rows[i]);
	return 0;
}

/*
 * Exited processes idle long enough leave every per-process map: the
 * counters, and with --tag-values the tag values and system calls, which
 * would otherwise fill up in a long run.
 */
static void prune(const struct tt_session *s, const struct tt_snapshot *cur)
{
	static struct tt_proc_key *keys;
	static size_t cap;
	size_t i, n = 0;

	if (cur->nr > cap) {
		struct tt_proc_key *k = realloc(keys, cur->nr * sizeof(*k));

		if (!k)
			return;		/* pruned at the next report */
		keys = k;
		cap = cur->nr;
	}
	for (i = 0; i < cur->nr; i++) {
		const struct tt_row *r = &cur->rows[i];

		if (r->gone && r->idle >= PRUNE_AFTER) {
			memset(&keys[n], 0, sizeof(keys[n]));	/* the pad too */
			keys[n].tgid = r->pid;
			keys[n++].start_ns = r->start_ns;
		}
	}
	tt_session_forget(s, keys, n);
}

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
		.hist_src = s->hist_src,
	};
	int err;

	memcpy(x.src, s->src, sizeof(x.src));
	if (env->tag_values && !tt_session_read_tags(s, &tags)) {
		x.tags = &tags;
		x.uncounted += tt_session_stat(s, TT_STAT_TAGS_FULL);
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
		err = snapshot(fd, &snaps[cur], &snaps[!cur], env->verbose);
		if (err) {
			fprintf(stderr, "tagtrace: cannot read the counters: %s\n",
				strerror(-err));
			break;
		}
		report(s, env, &snaps[cur], (now - last) / 1e9);
		last = now;
		prune(s, &snaps[cur]);
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
