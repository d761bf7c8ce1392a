/* SPDX-License-Identifier: GPL-2.0 */
/* TAP from the guest's C test programs: one "ok N - ..." line per check. */
#ifndef TT_TAP_CHECK_H
#define TT_TAP_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int tap_failed, tap_tests;

static void check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	tap_failed |= !cond;
}

#endif /* TT_TAP_CHECK_H */
