/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-process counter map as top and tags read it: a snapshot a
 * report, deltas against the last, and exited processes pruned.
 */
#ifndef TT_PROCS_H
#define TT_PROCS_H

#include <stdbool.h>
#include "session.h"
#include "table.h"

/*
 * Reports an exited process stays listed without activity before it
 * leaves the maps: long enough to be seen, short enough that a long run
 * of short-lived processes never fills them.
 */
#define TT_PRUNE_AFTER	5

/*
 * The whole counter map into cur, with deltas against prev (the last
 * report's) and each process marked gone once it has exited. 0 or -errno.
 */
int tt_procs_snapshot(const struct tt_session *s, struct tt_snapshot *cur,
		      struct tt_snapshot *prev, bool verbose);
/*
 * Processes of cur gone and idle for TT_PRUNE_AFTER reports leave every
 * per-process map: counters, tag values, system calls.
 */
void tt_procs_prune(const struct tt_session *s, const struct tt_snapshot *cur);

#endif /* TT_PROCS_H */
