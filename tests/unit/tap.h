/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP producer for the host unit tests: plan-less "ok N - desc" and
 * "not ok N - desc" lines, the values seen on a failure as "#" diagnostics,
 * and the plan "1..N" at the end. Failures between tap_todo("reason") and
 * tap_todo(NULL) carry a "# TODO reason" directive and do not fail the run.
 *
 *	ok(cond, "what it proves %d", x);
 *	is_int(got, want, "...");  is_uint(...);  is_str(got, want, "...");
 *	return tap_done();	(0 when nothing but TODO tests failed)
 */
#ifndef TT_TAP_H
#define TT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static unsigned int tap_count;		/* results so far */
static unsigned int tap_failed;		/* failures that count */
static unsigned int tap_todo_failed;	/* failures expected (TODO) */
static const char *tap_todo_reason;	/* non-NULL: in a TODO block */

/* Tests from here on are known to fail for reason; NULL ends the block. */
static inline void tap_todo(const char *reason)
{
	tap_todo_reason = reason;
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	char buf[4096];
	char *line, *save = NULL;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("#   %s\n", line);
	fflush(stdout);
}

/* A "#" comment line (or several): diagnostics, never results. */
static inline __attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

/* One result; '#' in the description is escaped as TAP asks. */
static inline bool tap_vresult(bool pass, const char *fmt, va_list ap)
{
	char desc[512];
	const char *p;

	vsnprintf(desc, sizeof(desc), fmt, ap);
	tap_count++;
	printf("%sok %u - ", pass ? "" : "not ", tap_count);
	for (p = desc; *p; p++) {
		if (*p == '#')
			putchar('\\');
		putchar(*p == '\n' ? ' ' : *p);
	}
	if (tap_todo_reason)
		printf(" # TODO %s", tap_todo_reason);
	putchar('\n');
	if (!pass) {
		if (tap_todo_reason)
			tap_todo_failed++;
		else
			tap_failed++;
	}
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 2, 3)))
bool tap_ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = tap_vresult(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __attribute__((format(printf, 3, 4)))
bool tap_is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = tap_vresult(got == want, fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("got:  %lld\nwant: %lld", got, want);
	return pass;
}

static inline __attribute__((format(printf, 3, 4)))
bool tap_is_uint(unsigned long long got, unsigned long long want,
		 const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = tap_vresult(got == want, fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("got:  %llu (0x%llx)\nwant: %llu (0x%llx)",
			 got, got, want, want);
	return pass;
}

/* s as a C string literal on one line, or "(null)". */
static inline void tap_quote(const char *what, const char *s)
{
	if (!s) {
		printf("#   %s (null)\n", what);
		return;
	}
	printf("#   %s \"", what);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	fputs("\"\n", stdout);
}

static inline __attribute__((format(printf, 3, 4)))
bool tap_is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = tap_vresult(got && want ? !strcmp(got, want) : got == want,
			   fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_quote("got: ", got);
		tap_quote("want:", want);
		fflush(stdout);
	}
	return pass;
}

/* The plan, and the exit status: nonzero when a non-TODO test failed. */
static inline int tap_done(void)
{
	printf("1..%u\n", tap_count);
	if (tap_todo_failed)
		printf("# %u known failure(s) marked TODO\n", tap_todo_failed);
	if (tap_failed)
		printf("# Looks like you failed %u test(s) of %u.\n",
		       tap_failed, tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...)		tap_ok(!!(cond), __VA_ARGS__)
#define is_int(got, want, ...)	tap_is_int((got), (want), __VA_ARGS__)
#define is_uint(got, want, ...)	tap_is_uint((got), (want), __VA_ARGS__)
#define is_str(got, want, ...)	tap_is_str((got), (want), __VA_ARGS__)

#endif /* TT_TAP_H */
