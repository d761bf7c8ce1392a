/* SPDX-License-Identifier: GPL-2.0 */
/* The three commands, each run on an open session until done or signalled. */
#ifndef TT_COMMANDS_H
#define TT_COMMANDS_H

#include <signal.h>
#include "env.h"
#include "session.h"

extern volatile sig_atomic_t tt_exiting;	/* SIGINT/SIGTERM seen */

int tt_trace_run(struct tt_session *s, const struct tt_env *env);
int tt_top_run(struct tt_session *s, const struct tt_env *env);
int tt_hist_run(struct tt_session *s, const struct tt_env *env);

/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads. */
__u64 tt_now_ns(void);
/* Sleeps up to sec seconds; returns early when a signal arrives. */
void tt_sleep(double sec);

#endif /* TT_COMMANDS_H */
