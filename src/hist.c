// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace hist: every interval, the time spent in switch_mm_irqs_off since
 * the last report, one log2 histogram per mode transition. BPF only ever
 * adds; the frontend subtracts the previous totals, so nothing is lost
 * between reading and clearing.
 */
#include <stdio.h>
#include <time.h>
#include "clock.h"
#include "commands.h"
#include "histfmt.h"
#include "out.h"

int tt_hist_run(struct tt_session *s, const struct tt_env *env,
		struct tt_stop *stop)
{
	static struct tt_hist_set sets[2];
	struct tt_hist_report rep = {
		.json = env->json,
		.unit = env->usec ? "us" : "ns",
		.src = s->hist_src,
	};
	int cur = 0;
	__u64 last = tt_now_ns(), due = last;
	long reports = 0;
	int err;

	fprintf(stderr, "tagtrace: timing switch_mm_irqs_off, reporting every %g s; Ctrl-C to stop\n",
		env->interval);
	for (;;) {
		due += (__u64)(env->interval * 1e9);
		tt_stop_wait(stop, -1, due);
		rep.ts_ns = tt_now_ns();
		if (due < rep.ts_ns)	/* a slow report: do not hurry the next */
			due = rep.ts_ns;
		/* A signal ends the run with one last, partial, report. */
		sets[cur].nr = tt_session_read_hists(s, sets[cur].e);
		rep.when = time(NULL);
		rep.interval_s = (rep.ts_ns - last) / 1e9;
		rep.uncounted = tt_session_stat(s, TT_STAT_HIST_FULL) +
				tt_session_missed(s);
		tt_hist_report(stdout, &rep, &sets[cur], &sets[!cur]);
		err = tt_out_flush(stdout, 0);
		if (err)
			return err < 0 ? err : 0;
		last = rep.ts_ns;
		cur = !cur;
		if (tt_stop_due(stop) || (env->count && ++reports >= env->count))
			break;
	}
	return 0;
}
