/* SPDX-License-Identifier: GPL-2.0 */
/* top --openmetrics: counters and switch_mm histograms for Prometheus. */
#ifndef TT_OPENMETRICS_H
#define TT_OPENMETRICS_H

#include <stdio.h>
#include "session.h"
#include "table.h"

/* The exposition, "# EOF" included, to out. */
void tt_openmetrics(FILE *out, const struct tt_snapshot *procs,
		    const struct tt_hist_entry *hists, int nr_hists,
		    __u64 uncounted);
/*
 * Rewrites path atomically: a temporary file in the same directory,
 * fsync'd, renamed over it, so a scraper never reads half a file.
 */
int tt_openmetrics_file(const char *path, const struct tt_snapshot *procs,
			const struct tt_hist_entry *hists, int nr_hists,
			__u64 uncounted);

#endif /* TT_OPENMETRICS_H */
