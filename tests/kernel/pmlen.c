// SPDX-License-Identifier: GPL-2.0
/*
 * pmlen: PR_SET_TAGGED_ADDR_CTRL in RISC-V's form (mainline 6.13), the
 * tag size wanted as the PR_PMLEN field of the flags word, on x86 and
 * arm64 (the uABI series' PR_PMLEN patch):
 *   prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | n << 24, 0, 0, 0)
 * enables tagging for 0 (no size in particular) up to the architecture's
 * tag size (argv[1]: 6 on x86, 8 on arm64), and is EINVAL beyond it,
 * changing nothing. The field and nr_bits together are EINVAL; the field
 * is ignored when disabling; PR_GET_TAGGED_ADDR_CTRL's value does not
 * carry it (GET stays the flags as set) while its nr_bits reads the grant.
 * Each case runs in a child: x86 cannot turn tagging off again. Run where
 * tagging is offered. Prints TAP; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/prctl.h>

#include "../lib/tap-check.h"

#ifndef PR_PMLEN_SHIFT
#define PR_PMLEN_SHIFT	24
#define PR_PMLEN_MASK	(0x7fUL << PR_PMLEN_SHIFT)
#endif

#ifdef __aarch64__
#define TAG_SHIFT	56	/* TBI: the top byte */
#else
#define TAG_SHIFT	57	/* LAM_U57 and UAI as the series grants them */
#endif

#define UNSET		(-77)

struct seen {
	long ret;
	int err;
	int bits, shift;	/* SET's nr_bits/offset, if passed */
	long ctrl;		/* GET's value afterwards */
	int gbits;		/* GET's nr_bits afterwards */
	int deref;		/* a tagged buffer passed to write(2) worked */
};

static struct seen *seen;
static int max_bits;

static long pmlen(unsigned long n)
{
	return (long)(n << PR_PMLEN_SHIFT);
}

/* write(2) from a tagged buffer: the kernel takes it only when enabled. */
static int tagged_syscall_works(void)
{
	static char buf[16] = "tagged";
	uintptr_t p = (uintptr_t)buf | (1UL << TAG_SHIFT) |
		      (1UL << (TAG_SHIFT + 4));
	int fd[2], ok;

	if (pipe(fd))
		return 0;
	ok = write(fd[1], (void *)p, 6) == 6;
	close(fd[0]);
	close(fd[1]);
	return ok;
}

static void after(void)
{
	seen->gbits = UNSET;
	seen->ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, &seen->gbits, 0, 0, 0);
	seen->deref = tagged_syscall_works();
}

/* flags as given; bits/shift passed as pointers when want_ptr says so. */
static void set_with(unsigned long flags, int pass_bits, int pass_shift)
{
	errno = 0;
	seen->ret = prctl(PR_SET_TAGGED_ADDR_CTRL, flags,
			  pass_bits ? &seen->bits : NULL,
			  pass_shift ? &seen->shift : NULL, 0);
	seen->err = errno;
	after();
}

static void in_child(unsigned long flags, int pass_bits, int pass_shift,
		     int bits)
{
	pid_t pid;
	int st;

	memset(seen, 0, sizeof(*seen));
	seen->bits = bits;
	seen->shift = UNSET;
	seen->ret = -999;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		set_with(flags, pass_bits, pass_shift);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		seen->ret = -1000;
}

static int enabled_as_granted(void)
{
	return seen->ret == 0 && seen->ctrl == PR_TAGGED_ADDR_ENABLE &&
	       seen->gbits == max_bits && seen->deref;
}

static int refused_and_off(int err)
{
	return seen->ret == -1 && seen->err == err && seen->ctrl == 0 &&
	       !seen->deref;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 2 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: pmlen TAG_BITS (6 on x86, 8 on arm64)\n");
		return 2;
	}
	max_bits = atoi(argv[1]);
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	for (n = 0; n <= (unsigned long)max_bits + 1; n++) {
		in_child(PR_TAGGED_ADDR_ENABLE | pmlen(n), 0, 0, UNSET);
		if (n <= (unsigned long)max_bits)
			check(enabled_as_granted(),
			      "PR_PMLEN %lu: enabled; GET is ENABLE alone (%#lx), its nr_bits the grant %d (%d); tagged write(2) %d (ret %ld errno %d)",
			      n, seen->ctrl, max_bits, seen->gbits,
			      seen->deref, seen->ret, seen->err);
		else
			check(refused_and_off(EINVAL),
			      "PR_PMLEN %lu, more than %d: EINVAL, tagging stays off (ret %ld errno %d, ctrl %#lx, tagged write(2) %d)",
			      n, max_bits, seen->ret, seen->err, seen->ctrl,
			      seen->deref);
	}
	in_child(PR_TAGGED_ADDR_ENABLE | pmlen(127), 0, 0, UNSET);
	check(refused_and_off(EINVAL),
	      "PR_PMLEN 127 (the field's largest): EINVAL, tagging off (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);

	in_child(PR_TAGGED_ADDR_ENABLE | pmlen(4), 1, 0, 4);
	check(refused_and_off(EINVAL) && seen->bits == 4,
	      "PR_PMLEN and nr_bits in one call: EINVAL, nr_bits unwritten, tagging off (ret %ld errno %d, nr_bits %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->bits, seen->ctrl);

	in_child(PR_TAGGED_ADDR_ENABLE | pmlen(4), 0, 1, UNSET);
	check(enabled_as_granted() && seen->shift == TAG_SHIFT,
	      "PR_PMLEN 4 with an offset pointer: enabled, offset %d (want %d)",
	      seen->shift, TAG_SHIFT);

	in_child(pmlen(4), 0, 0, UNSET);
	check(seen->ret == 0 && seen->ctrl == 0 && !seen->deref,
	      "PR_PMLEN 4 without PR_TAGGED_ADDR_ENABLE: ignored, tagging stays off (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);

	in_child(PR_TAGGED_ADDR_ENABLE, 0, 0, UNSET);
	check(enabled_as_granted(),
	      "the three-argument enable, PR_PMLEN 0, still works (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);

#ifdef __aarch64__
	{
		unsigned long mte = PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC |
				    (0x5a5aUL << PR_MTE_TAG_SHIFT);

		in_child(mte | pmlen(8), 0, 0, UNSET);
		check(seen->ret == 0 && (unsigned long)seen->ctrl == mte,
		      "PR_PMLEN 8 beside MTE's TCF and tag mask: GET returns the MTE flags as set, without the field (%#lx, want %#lx)",
		      seen->ctrl, mte);
	}
#endif
	return tap_end();
}
