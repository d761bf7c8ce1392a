// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace hist: every interval, the time spent in switch_mm_irqs_off since
 * the last report, one log2 histogram per mode transition. BPF only ever
 * adds; the frontend subtracts the previous totals, so nothing is lost
 * between reading and clearing.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "histfmt.h"
#include "json.h"

struct hist_set {
	struct tt_hist_entry e[TT_MAX_HISTS];
	int nr;
};

static const struct tt_hist *find(const struct hist_set *set,
				  const struct tt_hist_key *key)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (!memcmp(&set->e[i].key, key, sizeof(*key)))
			return &set->e[i].hist;
	return NULL;
}

static void report(const struct tt_env *env, const struct hist_set *cur,
		   const struct hist_set *prev, double interval, __u64 lost)
{
	const char *unit = env->usec ? "us" : "ns";
	struct json j;
	int i, shown = 0;

	if (env->json) {
		json_begin(&j, stdout);
		json_kuint(&j, "ts_ns", tt_now_ns());
		json_kdouble(&j, "interval_s", interval);
		json_kuint(&j, "uncounted", lost);
		json_key(&j, "histograms");
		putchar('[');
	} else {
		char when[16];
		time_t now = time(NULL);

		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		printf("\n%s\n", when);
	}
	for (i = 0; i < cur->nr; i++) {
		const struct tt_hist_key *key = &cur->e[i].key;
		const struct tt_hist *old = find(prev, key);
		struct tt_hist h = cur->e[i].hist;

		if (old)
			tt_hist_sub(&h, old);
		if (!h.count)
			continue;
		if (env->json) {
			if (shown)
				putchar(',');
			tt_hist_json(stdout, key, &h, unit);
		} else {
			tt_hist_text(stdout, key, &h, unit);
		}
		shown++;
	}
	if (env->json) {
		putchar(']');
		json_end(&j);
		putchar('\n');
	} else if (!shown) {
		puts("no context switches");
	}
	fflush(stdout);
}

int tt_hist_run(struct tt_session *s, const struct tt_env *env)
{
	static struct hist_set sets[2];
	int cur = 0;
	__u64 last = tt_now_ns();
	long reports = 0;

	fprintf(stderr, "tagtrace: timing switch_mm_irqs_off, reporting every %g s; Ctrl-C to stop\n",
		env->interval);
	for (;;) {
		__u64 now;

		tt_sleep(env->interval);
		now = tt_now_ns();
		sets[cur].nr = tt_session_read_hists(s, sets[cur].e);
		report(env, &sets[cur], &sets[!cur], (now - last) / 1e9,
		       tt_session_stat(s, TT_STAT_HIST_FULL));
		last = now;
		cur = !cur;
		if (tt_exiting || (env->count && ++reports >= env->count))
			break;
	}
	return 0;
}
