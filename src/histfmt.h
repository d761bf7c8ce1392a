/* SPDX-License-Identifier: GPL-2.0 */
/* Log2 histograms as ASCII bars (libbpf-tools' style) and as JSON. */
#ifndef TT_HISTFMT_H
#define TT_HISTFMT_H

#include <stdio.h>
#include "env.h"

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

#endif /* TT_HISTFMT_H */
