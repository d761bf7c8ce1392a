/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks tagtrace reads: BPF's monotonic one, and the wall clock. */
#ifndef TT_CLOCK_H
#define TT_CLOCK_H

#include <stddef.h>
#include <time.h>
#include <linux/types.h>

/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads. */
__u64 tt_now_ns(void);
/* "HH:MM:SS" of t in local time (TZ), as top and hist reports begin. */
const char *tt_clock_hms(time_t t, char *buf, size_t len);

#endif /* TT_CLOCK_H */
