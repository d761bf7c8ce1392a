/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test programs: tag a pointer, dereference it
 * in a child and report how that went, and the x86 tagging interfaces.
 */
#ifndef TAGTRACE_TESTS_TAGGING_H
#define TAGTRACE_TESTS_TAGGING_H

#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ARCH_GET_UNTAG_MASK
#define ARCH_GET_UNTAG_MASK	0x4001
#define ARCH_ENABLE_TAGGED_ADDR	0x4002
#define ARCH_GET_MAX_TAG_BITS	0x4003
#endif

/* Both backends: six tag bits at 62:57. */
#define TAG_SHIFT		57
#define TAG_BITS		6
#define TAG_MASK		(((1ULL << TAG_BITS) - 1) << TAG_SHIFT)

/* RISC-V's form of the size asked for: a field of the prctl's flags. */
#ifndef PR_PMLEN_SHIFT
#define PR_PMLEN_SHIFT		24
#endif
#define PMLEN(n)		((unsigned long)(n) << PR_PMLEN_SHIFT)

/* LAM_U48, for a request of 7 to 15 bits on LAM: fifteen at 62:48. */
#define U48_TAG_SHIFT		48
#define U48_TAG_BITS		15
#define U48_TAG_MASK		(((1ULL << U48_TAG_BITS) - 1) << U48_TAG_SHIFT)

static inline void *tag_ptr(const void *p, unsigned long tag)
{
	return (void *)(((uintptr_t)p & ~TAG_MASK) |
			((uint64_t)tag << TAG_SHIFT));
}

/*
 * Whether the CPU says GenuineIntel: the kernel raises LAM's user limit
 * to 2^63 - PAGE_SIZE on Intel's CPUs only, and untags before the check
 * on any other vendor's (the rig's TCG CPU says AuthenticAMD unless
 * booted with tests/vm/run --intel).
 */
static inline int cpu_is_intel(void)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;
}

static inline long arch_prctl(int op, unsigned long arg)
{
	return syscall(SYS_arch_prctl, op, arg);
}

/*
 * Read *p and write it back plus one, in a child. Returns 0 when that
 * worked and the write is visible through plain, the signal that killed
 * the child otherwise, 1000+ for other failures.
 */
static inline int deref_in_child(volatile uint64_t *p, volatile uint64_t *plain)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		uint64_t v = *p;

		*p = v + 1;
		_exit(*plain == v + 1 ? 0 : 3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1000;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WEXITSTATUS(status) ? 1000 + WEXITSTATUS(status) : 0;
}

#endif
