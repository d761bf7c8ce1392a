// SPDX-License-Identifier: GPL-2.0
/*
 * clflush: CLFLUSH, CLFLUSHOPT and CLWB fault as a byte load does. Run in
 * the guest:
 *
 *   clflush [lam|uai] [lass]
 *
 * SDM vol. 2, CLFLUSH: it "is subject to all permission checking and
 * faults associated with a byte load"; CLFLUSHOPT and CLWB likewise, with
 * the same exceptions listed (#GP(0) for a non-canonical address, #PF).
 * So each of them, from user mode:
 *   - on a mapped page: no fault;
 *   - on an unmapped page: #PF (SIGSEGV, SEGV_MAPERR at that address);
 *   - on a non-canonical address (bit 56 set, 63:57 clear): #GP(0)
 *     (SIGSEGV, SI_KERNEL), with 4- and 5-level paging and also after LAM
 *     masking (bits 62:57 become copies of bit 56, bit 63 stays clear) or
 *     UAI's (bits 63:57 become copies of bit 56; bits 56:48 then fail the
 *     4-level check);
 *   - "lam" or "uai" (tagging enabled with arch_prctl): on a tagged
 *     pointer (bits 62:57) to the mapped page, no fault, as a load through
 *     it works (LAM masks the address; UAI ignores the bits of a DS
 *     reference);
 *   - "lass": on a kernel-half address, #GP(0) (a LASS violation, before
 *     paging: SI_KERNEL); elsewhere a #PF, which Linux reports as
 *     SEGV_MAPERR or SEGV_ACCERR, either is fine.
 * A CPU that lacks CLFLUSHOPT or CLWB skips that instruction's cases.
 *
 * Prints TAP ("ok N - ..."), exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/in-child.h"
#include "../lib/tagging.h"
#include "../lib/tap-check.h"

enum insn { CLFLUSH, CLFLUSHOPT, CLWB };
static const char *const insn_name[] = { "CLFLUSH", "CLFLUSHOPT", "CLWB" };

/* What a child reports */
#define NO_FAULT	0
#define PF_MAPERR	10	/* SIGSEGV, SEGV_MAPERR at the operand */
#define PF_ACCERR	11	/* SIGSEGV, SEGV_ACCERR at the operand */
#define GP		12	/* SIGSEGV, SI_KERNEL (#GP) */
#define OTHER		13
#define PF_ANY		20	/* wanted: PF_MAPERR or PF_ACCERR */

static void *target;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_KERNEL)
		_exit(GP);
	if (si->si_addr != target)
		_exit(OTHER);
	_exit(si->si_code == SEGV_MAPERR ? PF_MAPERR :
	      si->si_code == SEGV_ACCERR ? PF_ACCERR : OTHER);
}

/* Through %rdi: a base of %rbp or %rsp would make it an SS reference (#SS) */
static void flush(enum insn i, void *p)
{
	switch (i) {
	case CLFLUSH:
		asm volatile("clflush (%0)" : : "D"(p) : "memory");
		break;
	case CLFLUSHOPT:
		asm volatile("clflushopt (%0)" : : "D"(p) : "memory");
		break;
	case CLWB:
		asm volatile("clwb (%0)" : : "D"(p) : "memory");
		break;
	}
}

struct flush_step {
	enum insn insn;
	void *p;
};

static int flush_step(void *arg)
{
	struct flush_step *f = arg;

	target = f->p;
	flush(f->insn, f->p);
	return NO_FAULT;
}

static int try_flush(enum insn i, void *p)
{
	struct flush_step f = { .insn = i, .p = p };

	return in_child(on_segv, flush_step, &f);
}

static const char *outcome(int st)
{
	switch (st) {
	case NO_FAULT:
		return "no fault";
	case PF_MAPERR:
		return "#PF (SEGV_MAPERR)";
	case PF_ACCERR:
		return "#PF (SEGV_ACCERR)";
	case PF_ANY:
		return "#PF";
	case GP:
		return "#GP";
	default:
		return "something else";
	}
}

int main(int argc, char **argv)
{
	int tagging = 0, lass = 0;
	unsigned int a, b, c, d, has[3];
	char *page, *hole;
	struct {
		void *p;
		int want;
		const char *what;
	} cases[5];
	unsigned int n = 0, i, k;

	for (i = 1; i < (unsigned int)argc; i++) {
		tagging |= !strcmp(argv[i], "lam") || !strcmp(argv[i], "uai");
		lass |= !strcmp(argv[i], "lass");
	}
	__cpuid_count(7, 0, a, b, c, d);
	has[CLFLUSH] = 1;
	has[CLFLUSHOPT] = !!(b & (1 << 23));
	has[CLWB] = !!(b & (1 << 24));

	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(page != MAP_FAILED, "two pages mapped");
	if (page == MAP_FAILED)
		return tap_end();
	page[0] = 1;
	hole = page + 4096;
	check(munmap(hole, 4096) == 0, "the second page unmapped again");

	cases[n++] = (typeof(cases[0])){ page, NO_FAULT, "a mapped page" };
	cases[n++] = (typeof(cases[0])){ hole, PF_MAPERR, "an unmapped page" };
	cases[n++] = (typeof(cases[0])){ (void *)((uintptr_t)page | 1UL << 56),
					 GP, "a non-canonical address" };
	if (tagging) {
		long r = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS);

		check(r == 0, "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, %d)",
		      TAG_BITS);
		cases[n++] = (typeof(cases[0])){ tag_ptr(page, 0x2a), NO_FAULT,
						 "a tagged pointer to a mapped page" };
	}
	cases[n++] = (typeof(cases[0])){ (void *)0xffffffff81000000UL,
					 lass ? GP : PF_ANY,
					 "a kernel-half address" };

	for (k = CLFLUSH; k <= CLWB; k++) {
		if (!has[k]) {
			printf("ok %d - # SKIP no %s in CPUID\n", ++tap_tests,
			       insn_name[k]);
			continue;
		}
		for (i = 0; i < n; i++) {
			int st = try_flush(k, cases[i].p);
			int good = st == cases[i].want ||
				   (cases[i].want == PF_ANY &&
				    (st == PF_MAPERR || st == PF_ACCERR));

			check(good, "%s on %s (%p): %s [%d] (want: %s)",
			      insn_name[k], cases[i].what, cases[i].p,
			      outcome(st), st, outcome(cases[i].want));
		}
	}
	return tap_end();
}
