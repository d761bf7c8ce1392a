// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of put_user()'s range check before and after "x86/uaccess:
 * Clamp put_user() pointers to USER_PTR_MAX like get_user()", run in user
 * space on this machine's CPU: the old mov/sar/or against the new
 * movabs/cmp/cmova, each followed by the store it guards, as in
 * __put_user_8. Prints ns per check for each, best of TRIALS, and the
 * ratio.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS	200000000UL
#define TRIALS	7

static unsigned long slot;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * RUN(name, check): a function timing ITERS rounds of CHECK (on %rcx, the
 * pointer, with %[t] free) followed by the 8-byte store it guards.
 */
#define RUN(name, check)						\
static double name(void)						\
{									\
	unsigned long n = ITERS, p = (unsigned long)&slot, t;		\
	double t0 = now();						\
									\
	asm volatile("1:\n\t"						\
		     "mov %[p], %%rcx\n\t"				\
		     check						\
		     "mov %[n], (%%rcx)\n\t"				\
		     "dec %[n]\n\t"					\
		     "jnz 1b"						\
		     : [n] "+r" (n), [t] "=&r" (t)			\
		     : [p] "r" (p) : "rcx", "memory", "cc");		\
	return (now() - t0) * 1e9 / ITERS;				\
}

/* Before: bit 63 set forces all-ones, anything else passes. */
RUN(run_old, "mov %%rcx, %[t]\n\t" "sar $63, %[t]\n\t" "or %[t], %%rcx\n\t")
/* After: clamp to USER_PTR_MAX, a runtime constant (an immediate). */
RUN(run_new, "movabs $0x7ffffffff000, %[t]\n\t" "cmp %[t], %%rcx\n\t"
	     "cmova %[t], %%rcx\n\t")

int main(void)
{
	double o = 1e9, w = 1e9, x;
	int i;

	for (i = 0; i < TRIALS; i++) {
		x = run_old();
		if (x < o)
			o = x;
		x = run_new();
		if (x < w)
			w = x;
	}
	printf("put_user check + store, best of %d x %lu: sar/or %.3f ns, cmp/cmova %.3f ns, ratio %.3f\n",
	       TRIALS, ITERS, o, w, w / o);
	return 0;
}
