// SPDX-License-Identifier: GPL-2.0
/*
 * fsgsbase: WRFSBASE and WRGSBASE from user mode with values that are not
 * canonical. Run in the guest:
 *
 *   fsgsbase [lam]
 *
 * SDM vol. 2, WRFSBASE/WRGSBASE: "#GP(0) If the source register contains a
 * non-canonical address". Canonical is relative to the linear-address
 * width in use: 48 bits with 4-level paging, 57 with 5-level paging (this
 * program reads which from /proc/cpuinfo: "la57" is listed only when the
 * kernel runs with 5-level paging). LAM does not change this check: the
 * base is not an address of a data access, so a tagged value is as
 * non-canonical as any other ("lam": tagging is enabled first with
 * arch_prctl(ARCH_ENABLE_TAGGED_ADDR)).
 *
 * Linux enables CR4.FSGSBASE (HWCAP2_FSGSBASE tells user space). A write
 * that raises #GP is delivered as SIGSEGV with RIP at the WRxSBASE itself;
 * a write that is wrongly accepted is undone at once by a second write, so
 * that nothing uses the bad base, and reported as a failure. Each value:
 *   - the register's own value: accepted, read back by RDxSBASE;
 *   - bit 62 set (not canonical with 48 or 57 bits): #GP;
 *   - bit 47 set, bits 63:48 clear: #GP with 4-level paging, accepted
 *     with 5-level paging;
 *   - a user pointer with a LAM tag in bits 62:57: #GP;
 *   - the same with 32-bit operand size (upper half ignored): accepted.
 *
 * Prints TAP ("ok N - ..."), exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "../lib/in-child.h"
#include "../lib/tagging.h"
#include "../lib/tap-check.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE		(1 << 1)
#endif

/* Exit statuses of a child */
#define WROTE		0	/* the write was accepted and read back */
#define FAULTED		10	/* SIGSEGV at the WRxSBASE */
#define FAULT_ELSEWHERE	11	/* SIGSEGV somewhere else */
#define MISREAD		12	/* accepted, but RDxSBASE differs */

/* The addresses of the two WRxSBASE instructions that may fault */
extern char wrfs_insn[], wrgs_insn[];

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t rip = uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	_exit(rip == (uintptr_t)wrfs_insn || rip == (uintptr_t)wrgs_insn ?
	      FAULTED : FAULT_ELSEWHERE);
}

/*
 * Write V to the FS or GS base (64-bit operand, or 32-bit with NARROW),
 * read it back, restore the old base: no instruction between the two
 * writes uses the segment.
 */
static __attribute__((noinline, noclone))
uint64_t write_base(int gs, int narrow, uint64_t v)
{
	uint64_t old, got;

	if (gs && narrow)
		asm volatile("rdgsbase %0\n\t"
			     "wrgsbase %k2\n\t"
			     "rdgsbase %1\n\t"
			     "wrgsbase %0"
			     : "=&r"(old), "=&r"(got) : "r"(v));
	else if (gs)
		asm volatile("rdgsbase %0\n"
			     "wrgs_insn:\n\t"
			     "wrgsbase %2\n\t"
			     "rdgsbase %1\n\t"
			     "wrgsbase %0"
			     : "=&r"(old), "=&r"(got) : "r"(v));
	else if (narrow)
		asm volatile("rdfsbase %0\n\t"
			     "wrfsbase %k2\n\t"
			     "rdfsbase %1\n\t"
			     "wrfsbase %0"
			     : "=&r"(old), "=&r"(got) : "r"(v));
	else
		asm volatile("rdfsbase %0\n"
			     "wrfs_insn:\n\t"
			     "wrfsbase %2\n\t"
			     "rdfsbase %1\n\t"
			     "wrfsbase %0"
			     : "=&r"(old), "=&r"(got) : "r"(v));
	return got;
}

struct write_step {
	int gs, narrow;
	uint64_t v;
};

static int write_step(void *arg)
{
	struct write_step *w = arg;
	uint64_t want = w->narrow ? (uint32_t)w->v : w->v;

	return write_base(w->gs, w->narrow, w->v) == want ? WROTE : MISREAD;
}

/* Run one write in a child; returns its WROTE/FAULTED/... status. */
static int try_write(int gs, int narrow, uint64_t v)
{
	struct write_step w = { .gs = gs, .narrow = narrow, .v = v };

	return in_child(on_segv, write_step, &w);
}

static const char *outcome(int st)
{
	switch (st) {
	case WROTE:
		return "accepted";
	case FAULTED:
		return "#GP at the write";
	case FAULT_ELSEWHERE:
		return "SIGSEGV elsewhere";
	case MISREAD:
		return "accepted, read back differently";
	default:
		return "child failed";
	}
}

static int la57_in_use(void)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			found = strstr(line, " la57") ? 1 : 2;
	fclose(f);
	return found ? found == 1 : -1;
}

int main(int argc, char **argv)
{
	static uint64_t var;
	int lam = argc > 1 && !strcmp(argv[1], "lam");
	int la57 = la57_in_use();
	uint64_t tagged = (uint64_t)tag_ptr(&var, 0x2a);
	const struct {
		uint64_t v;
		int narrow, want;
		const char *what;
	} vals[] = {
		{ (uint64_t)&var, 0, WROTE, "a user address" },
		{ 1ULL << 62, 0, FAULTED, "bit 62 set" },
		{ 1ULL << 47, 0, la57 ? WROTE : FAULTED,
		  la57 ? "bit 47 set, 5-level paging" :
			 "bit 47 set, 4-level paging" },
		{ tagged, 0, FAULTED, "a LAM-tagged user address" },
		{ tagged, 1, WROTE, "a LAM-tagged user address, 32-bit operand" },
	};
	unsigned int i;
	int gs;

	check(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE,
	      "the kernel enables FSGSBASE for user space");
	check(la57 >= 0, "paging mode read from /proc/cpuinfo (%s)",
	      la57 ? "5-level" : "4-level");
	if (lam) {
		long r = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS);

		check(r == 0, "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, %d)",
		      TAG_BITS);
	}
	for (gs = 0; gs < 2; gs++) {
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			int st = try_write(gs, vals[i].narrow, vals[i].v);

			check(st == vals[i].want,
			      "WR%sBASE %#llx (%s): %s (want: %s)",
			      gs ? "GS" : "FS",
			      (unsigned long long)vals[i].v, vals[i].what,
			      outcome(st), outcome(vals[i].want));
		}
	}
	return tap_end();
}
