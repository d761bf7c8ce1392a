/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP from the guest's C test programs: one "ok N - ..." line per check,
 * and the plan from tap_end() once the program is through. The host binds
 * it (tests/lib/tap.sh): results without a plan are a program that ended
 * early. main() ends with "return tap_end();".
 */
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

/* The plan; the exit status: 1 if a check failed or none ran. */
static int tap_end(void)
{
	printf("1..%d\n", tap_tests);
	fflush(stdout);
	return tap_failed || !tap_tests;
}

#endif /* TT_TAP_CHECK_H */
