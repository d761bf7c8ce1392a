/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch_mm histograms as read from BPF's hists map: what session.c
 * reads and histfmt.c and openmetrics.c print, with no libbpf in sight.
 */
#ifndef TT_HISTMAP_H
#define TT_HISTMAP_H

#include "env.h"

struct tt_hist_entry {
	struct tt_hist_key key;
	struct tt_hist hist;
};

#define TT_MAX_HISTS TT_HIST_KEYS	/* one a transition */

#endif /* TT_HISTMAP_H */
