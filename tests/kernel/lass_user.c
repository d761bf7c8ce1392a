// SPDX-License-Identifier: GPL-2.0
/*
 * lass_user: what a user process sees of LASS.
 *
 *   lass_user lass|nolass|emulate
 *
 * With LASS on, a user access to the kernel half never reaches paging: it
 * is a #GP, which Linux reports as SIGSEGV with si_code SI_KERNEL and no
 * address. Without LASS it is a #PF: SIGSEGV, SEGV_MAPERR, at the address.
 * Either way a call into the vsyscall page is emulated and returns the
 * time of day; a read of that page is refused (vsyscall=xonly, the
 * default), or, with vsyscall=emulate (emulate: which turns LASS off),
 * reads the page. Prints TAP, exits 1 on any failure.
 *
 *   lass_user bpf
 *
 * loads and closes 16 BPF socket filters: the JIT writes each program
 * into its pack with text_poke_copy() and, once the program is freed
 * (after an RCU grace period, from a workqueue: maybe only after this
 * exits), fills its space with text_poke_set(), both through text_poke()'s
 * user-half mapping. The caller counts the text_poke_set() calls, waiting
 * until there is one for each program.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "../lib/tap-check.h"

#define KERNEL_ADDR	0xffffffff81000000UL	/* kernel text, mapped */
#define VSYSCALL_GTOD	0xffffffffff600000UL

static sigjmp_buf jmp;
static siginfo_t seen;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	seen = *si;
	siglongjmp(jmp, 1);
}

/* Run FN; 1 if it took SIGSEGV (seen holds its siginfo), 0 if not. */
static int segv(void (*fn)(void))
{
	memset(&seen, 0, sizeof(seen));
	if (sigsetjmp(jmp, 1) == 0) {
		fn();
		return 0;
	}
	return 1;
}

static void load_kernel(void)
{
	(void)*(volatile long *)KERNEL_ADDR;
}

static void fetch_kernel(void)
{
	((void (*)(void))KERNEL_ADDR)();
}

static void load_vsyscall(void)
{
	(void)*(volatile long *)VSYSCALL_GTOD;
}

static struct timeval gtod_tv;
static long gtod_ret = -1;

static void call_vsyscall(void)
{
	long (*vgtod)(struct timeval *, void *) = (void *)VSYSCALL_GTOD;

	gtod_ret = vgtod(&gtod_tv, NULL);
}

static void expect_fault(const char *what, void (*fn)(void), int lass,
			 unsigned long addr)
{
	if (!segv(fn)) {
		check(0, "%s: SIGSEGV", what);
		return;
	}
	if (lass)
		check(seen.si_code == SI_KERNEL && seen.si_addr == NULL,
		      "%s: SIGSEGV from a #GP (si_code SI_KERNEL, no address; got %d, %p)",
		      what, seen.si_code, seen.si_addr);
	else
		check(seen.si_code == SEGV_MAPERR &&
		      (unsigned long)seen.si_addr == addr,
		      "%s: SIGSEGV from a #PF (SEGV_MAPERR at %#lx; got %d, %p)",
		      what, addr, seen.si_code, seen.si_addr);
}

/* "r0 = 0; exit": a socket filter that drops every packet. */
static int bpf_load_drop_all(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	return syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

static int bpf_pokes(void)
{
	int i, fd, loaded = 0;

	for (i = 0; i < 16; i++) {
		fd = bpf_load_drop_all();
		if (fd >= 0) {
			loaded++;
			close(fd);
		}
	}
	check(loaded == 16, "16 BPF programs JITed, loaded and closed (%d loaded)",
	      loaded);
	return tap_end();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	struct timeval before, after;
	int lass, emulate, sig;

	if (argc == 2 && !strcmp(argv[1], "bpf"))
		return bpf_pokes();
	if (argc != 2 || (strcmp(argv[1], "lass") && strcmp(argv[1], "nolass") &&
			  strcmp(argv[1], "emulate"))) {
		fprintf(stderr, "usage: lass_user lass|nolass|emulate\n");
		return 2;
	}
	lass = !strcmp(argv[1], "lass");
	emulate = !strcmp(argv[1], "emulate");
	sigaction(SIGSEGV, &sa, NULL);

	expect_fault("a load from the kernel half", load_kernel, lass, KERNEL_ADDR);
	expect_fault("a call into the kernel half", fetch_kernel, lass, KERNEL_ADDR);

	/*
	 * The emulation answers from the kernel's clock: its time lies
	 * between two gettimeofday() system calls made around it.
	 */
	syscall(SYS_gettimeofday, &before, NULL);
	sig = segv(call_vsyscall);
	syscall(SYS_gettimeofday, &after, NULL);
	check(!sig && gtod_ret == 0 && !timercmp(&gtod_tv, &before, <) &&
	      !timercmp(&gtod_tv, &after, >),
	      "a call to the vsyscall page's gettimeofday is emulated (%s, returned %ld, %ld.%06ld s between %ld.%06ld and %ld.%06ld)",
	      sig ? "SIGSEGV" : "no signal", gtod_ret, (long)gtod_tv.tv_sec,
	      (long)gtod_tv.tv_usec, (long)before.tv_sec,
	      (long)before.tv_usec, (long)after.tv_sec, (long)after.tv_usec);
	if (emulate)
		check(!segv(load_vsyscall),
		      "a load from the vsyscall page (vsyscall=emulate) reads it");
	else
		expect_fault("a load from the vsyscall page (vsyscall=xonly)",
			     load_vsyscall, lass, VSYSCALL_GTOD);

	return tap_end();
}
