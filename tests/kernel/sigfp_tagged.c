// SPDX-License-Identifier: GPL-2.0
/*
 * sigfp_tagged TAG: with tagging enabled, a SIGUSR1 handler writes a
 * marker into the frame's saved %xmm0 and points the frame's fpstate at
 * a tagged alias of that state (TAG in bits 62:57) before it returns, so
 * rt_sigreturn() restores the FPU state through the tagged pointer: XRSTOR
 * through %rdi, or without XSAVE (the noxsave boot option) the legacy
 * FXRSTOR, whose operand the compiler bases where it likes (%rbp, an SS
 * reference, in the guest kernel). Exit status 0 if %xmm0 holds the
 * marker afterwards; a failed restore kills the process with SIGSEGV.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../lib/tagging.h"

#define MARKER 0x5a5a1234c0ffee00ULL

static unsigned long tag;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint64_t *xmm0 = (uint64_t *)uc->uc_mcontext.fpregs->_xmm[0].element;

	(void)sig;
	(void)si;
	xmm0[0] = MARKER;
	xmm0[1] = ~MARKER;
	uc->uc_mcontext.fpregs = tag_ptr(uc->uc_mcontext.fpregs, tag);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uint64_t got[2];
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TAG\n", argv[0]);
		return 2;
	}
	tag = strtoul(argv[1], NULL, 0);
	if (arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		perror("sigfp_tagged: ARCH_ENABLE_TAGGED_ADDR");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	/*
	 * kill() to itself in one asm with the zeroing and the read of %xmm0,
	 * so that no library code runs between them: the signal is delivered
	 * on the way out of the system call.
	 */
	ret = SYS_kill;
	asm volatile("pxor %%xmm0, %%xmm0\n\t"
		     "syscall\n\t"
		     "movdqu %%xmm0, %[got]"
		     : "+a" (ret), [got] "=m" (got)
		     : "D" ((long)getpid()), "S" ((long)SIGUSR1)
		     : "rcx", "r11", "xmm0", "memory");
	if (ret) {
		fprintf(stderr, "sigfp_tagged: kill: %ld\n", ret);
		return 1;
	}
	if (got[0] != MARKER || got[1] != ~MARKER) {
		fprintf(stderr, "sigfp_tagged: %%xmm0 is %#llx %#llx after the return through tag %#lx, not the marker\n",
			(unsigned long long)got[0], (unsigned long long)got[1], tag);
		return 1;
	}
	printf("sigfp_tagged: the FPU state came back through tag %#lx\n", tag);
	return 0;
}
