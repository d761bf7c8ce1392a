// SPDX-License-Identifier: GPL-2.0
/*
 * gpbits: dereferences that fault with a #GP, each in a child of its own,
 * for the tagged_addr_gp event's rule: reported when the operand is
 * non-canonical under the process's mode, or carries a tag in a process
 * without tagging; not when only something else is wrong.
 *
 * For each case it prints "case NAME pid PID sig SIG" (SIG 0: the access
 * worked; -1: the enable was refused, LAM_U48 where there is none), for
 * tests/tool/check_gpbits.py. The accesses: a store, a misaligned movaps
 * (a #GP whatever the address), a load based on %rbp (an SS reference:
 * #SS when non-canonical) and a call through a register (the target is
 * fetched, which no tagging mode masks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../lib/tagging.h"

/* How a case uses its pointer. */
enum access { STORE, MISALIGNED, THROUGH_RBP, CALL };

struct gp_case {
	const char *name;
	int bits;		/* ARCH_ENABLE_TAGGED_ADDR with these first */
	uint64_t set;		/* bits or'ed into the pointer */
	enum access how;
};

static const struct gp_case cases[] = {
	{ "field",		6, 0x2aULL << TAG_SHIFT, STORE },
	{ "bit56",		6, 1ULL << 56, STORE },
	{ "bit55",		6, 1ULL << 55, STORE },
	{ "bit63",		6, 1ULL << 63 | 0x2aULL << TAG_SHIFT, STORE },
	{ "kernel_half",	6, 0xffff888000000000ULL, MISALIGNED },
	{ "misaligned",		6, 0x2aULL << TAG_SHIFT, MISALIGNED },
	{ "rbp_tag",		6, 0x2aULL << TAG_SHIFT, THROUGH_RBP },
	{ "rbp_bit56",		6, 1ULL << 56, THROUGH_RBP },
	{ "call_tagged",	6, 0x2aULL << TAG_SHIFT, CALL },
	{ "untagged_tag",	0, 0x2aULL << TAG_SHIFT, STORE },
	{ "untagged_bit56",	0, 1ULL << 56, STORE },
	{ "u48_bit47",		15, 1ULL << 47 | 0x1234ULL << 48, STORE },
};

/* A function to call through a tagged pointer: the call faults first. */
static void target(void)
{
}

static void run(const struct gp_case *c, char *page)
{
	uintptr_t p = (uintptr_t)(c->how == CALL ? (void *)target : page);

	if (c->how == MISALIGNED && c->set >> 63)
		p = 0;		/* a kernel address, canonical */
	p |= c->set;
	if (c->bits && arch_prctl(ARCH_ENABLE_TAGGED_ADDR, c->bits)) {
		/* LAM_U48's fifteen bits: EINVAL where only six exist. */
		if (errno == EINVAL && c->bits > TAG_BITS)
			_exit(3);
		perror("gpbits: ARCH_ENABLE_TAGGED_ADDR");
		_exit(2);
	}
	switch (c->how) {
	case STORE:
		*(volatile uint64_t *)p = 1;
		break;
	case MISALIGNED:
		asm volatile("movaps (%0), %%xmm0" : : "r"(p + 8) : "xmm0");
		break;
	case THROUGH_RBP:	/* an SS reference: %rbp as the base */
		asm volatile("push %%rbp\n\tmov %0, %%rbp\n\t"
			     "mov (%%rbp), %%rax\n\tpop %%rbp"
			     : : "r"(p) : "rax", "memory");
		break;
	case CALL:		/* call *%reg: the target is fetched */
		asm volatile("call *%0" : : "r"(p) : "memory");
		break;
	}
	_exit(0);
}

int main(void)
{
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (page == MAP_FAILED) {
		perror("gpbits: mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("gpbits: fork");
			return 1;
		}
		if (pid == 0)
			run(&cases[i], page);
		if (waitpid(pid, &status, 0) != pid) {
			perror("gpbits: waitpid");
			return 1;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
			printf("case %s pid %d sig -1\n", cases[i].name,
			       (int)pid);
			continue;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status)) {
			fprintf(stderr, "gpbits: %s exited %d\n", cases[i].name,
				WEXITSTATUS(status));
			return 1;
		}
		printf("case %s pid %d sig %d\n", cases[i].name, (int)pid,
		       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	return 0;
}
