// SPDX-License-Identifier: GPL-2.0
/*
 * gpbits: dereferences that fault with a #GP, each in a child of its own,
 * for the tagged_addr_gp event's rule: reported when the operand is
 * non-canonical under the process's mode, or carries a tag in a process
 * without tagging; not when only something else is wrong.
 *
 * For each case it prints "case NAME pid PID sig SIG" (SIG 0: the access
 * worked), for tests/tool/check_gpbits.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../lib/tagging.h"

struct gp_case {
	const char *name;
	int tagged;		/* ARCH_ENABLE_TAGGED_ADDR first */
	uint64_t set;		/* bits or'ed into the pointer */
	int misaligned;		/* movaps at an address 8 off 16 */
};

static const struct gp_case cases[] = {
	{ "field",		1, 0x2aULL << TAG_SHIFT, 0 },
	{ "bit56",		1, 1ULL << 56, 0 },
	{ "bit55",		1, 1ULL << 55, 0 },
	{ "bit63",		1, 1ULL << 63 | 0x2aULL << TAG_SHIFT, 0 },
	{ "misaligned",		1, 0x2aULL << TAG_SHIFT, 1 },
	{ "untagged_tag",	0, 0x2aULL << TAG_SHIFT, 0 },
	{ "untagged_bit56",	0, 1ULL << 56, 0 },
};

static void run(const struct gp_case *c, char *page)
{
	uintptr_t p = (uintptr_t)page | c->set;

	if (c->tagged && arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		perror("gpbits: ARCH_ENABLE_TAGGED_ADDR");
		_exit(2);
	}
	if (c->misaligned)
		asm volatile("movaps (%0), %%xmm0" : : "r"(p + 8) : "xmm0");
	else
		*(volatile uint64_t *)p = 1;
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
