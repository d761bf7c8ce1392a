// SPDX-License-Identifier: GPL-2.0
/* The clocks tagtrace reads: BPF's monotonic one, and the wall clock. */
#include <stdio.h>
#include "clock.h"

__u64 tt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

const char *tt_clock_hms(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
	return buf;
}
