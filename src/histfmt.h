/* SPDX-License-Identifier: GPL-2.0 */
/* Log2 histograms as ASCII bars (libbpf-tools' style) and as JSON. */
#ifndef TT_HISTFMT_H
#define TT_HISTFMT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "env.h"
#include "histmap.h"

/* Bucket i holds values in [low, high]: 0-1, 2-3, 4-7, ... */
void tt_bucket_bounds(int i, __u64 *low, __u64 *high);
/* "prev -> next" or "same mm (mode)", the histogram's title. */
const char *tt_hist_title(const struct tt_hist_key *key, char *buf, size_t len);
void tt_hist_text(FILE *out, const struct tt_hist_key *key,
		  const struct tt_hist *h, const char *unit);
/* One JSON object: the transition, unit, count, mean and every bucket. */
void tt_hist_json(FILE *out, const struct tt_hist_key *key,
		  const struct tt_hist *h, const char *unit);
/* h - old, bucket by bucket. */
void tt_hist_sub(struct tt_hist *h, const struct tt_hist *old);

/* Every histogram of the hists map at one moment. */
struct tt_hist_set {
	struct tt_hist_entry e[TT_MAX_HISTS];
	int nr;
};

/* What a hist report says besides the histograms. */
struct tt_hist_report {
	bool json;
	const char *unit;	/* "ns" or "us" */
	__u64 ts_ns;		/* CLOCK_MONOTONIC, in JSON */
	time_t when;		/* wall clock, in text */
	double interval_s;
	__u64 uncounted;	/* switches not timed since start */
	unsigned int src;	/* enum tt_source: fentry or kprobe */
};

/*
 * The probes that timed the histograms, and what they add to each time
 * (text); JSON names the source as tt_source_name() does.
 */
const char *tt_hist_source_text(unsigned int src);

/*
 * One report of the interval from prev to cur: each transition with
 * switches in it, or "no context switches"; one NDJSON line with --json.
 */
void tt_hist_report(FILE *out, const struct tt_hist_report *rep,
		    const struct tt_hist_set *cur,
		    const struct tt_hist_set *prev);

#endif /* TT_HISTFMT_H */
