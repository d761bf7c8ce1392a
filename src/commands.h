/* SPDX-License-Identifier: GPL-2.0 */
/* The four commands, each run on an open session until done or stopped. */
#ifndef TT_COMMANDS_H
#define TT_COMMANDS_H

#include "env.h"
#include "session.h"
#include "stop.h"

int tt_trace_run(struct tt_session *s, const struct tt_env *env,
		 struct tt_stop *stop);
int tt_top_run(struct tt_session *s, const struct tt_env *env,
	       struct tt_stop *stop);
int tt_hist_run(struct tt_session *s, const struct tt_env *env,
		struct tt_stop *stop);
int tt_tags_run(struct tt_session *s, const struct tt_env *env,
		struct tt_stop *stop);

#endif /* TT_COMMANDS_H */
