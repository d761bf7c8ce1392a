/* SPDX-License-Identifier: GPL-2.0 */
/* top --openmetrics: counters and switch_mm histograms for Prometheus. */
#ifndef TT_OPENMETRICS_H
#define TT_OPENMETRICS_H

#include <stdio.h>
#include "histmap.h"
#include "table.h"

struct tt_tagreport;

/* One export: what top read in an interval and where it came from. */
struct tt_export {
	const struct tt_snapshot *procs;
	const struct tt_hist_entry *hists;
	int nr_hists;
	__u64 uncounted;
	/* TT_SRC_NONE: no source on this kernel, the family is left out. */
	enum tt_source src[TT_EV_MAX];
	enum tt_source hist_src;
	/* top --histograms: switch_time has a source line and a family. */
	bool hist_asked;
	/* top --tag-values: each process's tag values; NULL: left out. */
	const struct tt_tagreport *tags;
	/*
	 * The time of this write (CLOCK_REALTIME, ns), which the file says
	 * as the last successful one: a file left in place by failed writes
	 * shows its age.
	 */
	__u64 written_ns;
	/* Writes of the file that failed before this one, since the start. */
	__u64 write_failures;
};

/*
 * The exposition, "# EOF" included, to out. Fault tags guessed from
 * registers (x->procs->fault_tags_guessed) have families of their own,
 * named "guessed", and tagtrace_source_info says so (fault_pointer).
 */
void tt_openmetrics(FILE *out, const struct tt_export *x);
/*
 * Rewrites path atomically: a temporary file in the same directory,
 * renamed over it, so a scraper never reads half a file. 0 or -errno;
 * on failure path is left as it was.
 */
int tt_openmetrics_file(const char *path, const struct tt_export *x);

#endif /* TT_OPENMETRICS_H */
