// SPDX-License-Identifier: GPL-2.0
/*
 * pmlen: PR_SET_TAGGED_ADDR_CTRL in RISC-V's form (mainline 6.13), the
 * tag size wanted as the PR_PMLEN field of the flags word, on x86 and
 * arm64 (the uABI series' PR_PMLEN patch):
 *   prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | n << 24, 0, &off, 0)
 * enables tagging for 0 (the default grant) up to the largest tag size
 * offered, each size getting the smallest grant that holds it, and is
 * EINVAL beyond (asked up to 16, and 127), changing nothing. argv[1]
 * lists the grants, smallest first, as BITS@SHIFT: "6@57" on UAI,
 * "6@57,15@48" on LAM (LAM_U57, then LAM_U48 for 7 to 15), "8@56" on
 * arm64 (TBI). A grant is checked through GET (its value, nr_bits and
 * offset) and a write(2) from a buffer tagged at the grant's lowest and
 * highest tag bit. RISC-V's field promises the top n bits: arm64's top
 * byte is that, and takes the call without &off as RISC-V does; on x86
 * bit 63 is never a tag, so a size in the field without &off is EINVAL
 * (only 0, the default, goes without). The field and nr_bits together
 * are EINVAL; the field is ignored when disabling;
 * PR_GET_TAGGED_ADDR_CTRL's value does not carry it (GET stays the flags
 * as set). Each case runs in a child: x86 cannot turn tagging off again.
 * Run where tagging is offered. Prints TAP; exits 1 on a failure.
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

#define UNSET		(-77)
#define MAX_GRANTS	2

struct seen {
	long ret;
	int err;
	int bits, shift;	/* SET's nr_bits/offset, if passed */
	long ctrl;		/* GET's value afterwards */
	int gbits, gshift;	/* GET's nr_bits/offset afterwards */
	int deref;		/* a tagged buffer passed to write(2) worked */
};

struct grant {
	int bits, shift;
};

static struct seen *seen;
static struct grant grants[MAX_GRANTS];
static int ngrants;

/* RISC-V's field asks for the top n bits; x86 takes it only with &off. */
#ifdef __x86_64__
#define FIELD_NEEDS_OFFSET 1
#else
#define FIELD_NEEDS_OFFSET 0
#endif

static long pmlen(unsigned long n)
{
	return (long)(n << PR_PMLEN_SHIFT);
}

/*
 * write(2) from a buffer tagged at the lowest and the highest bit of
 * @g's tag: the kernel takes it only when @g's mode is on (LAM_U57 does
 * not ignore bit 48).
 */
static int tagged_syscall_works(const struct grant *g)
{
	static char buf[16] = "tagged";
	uintptr_t p = (uintptr_t)buf | (1UL << g->shift) |
		      (1UL << (g->shift + g->bits - 1));
	int fd[2], ok;

	if (pipe(fd))
		return 0;
	ok = write(fd[1], (void *)p, 6) == 6;
	close(fd[0]);
	close(fd[1]);
	return ok;
}

/* The grant a request for @n bits gets (0: the default), or NULL. */
static const struct grant *grant_for(unsigned long n)
{
	int i;

	for (i = 0; i < ngrants; i++)
		if (n <= (unsigned long)grants[i].bits)
			return &grants[i];
	return NULL;
}

static void after(const struct grant *expect)
{
	seen->gbits = UNSET;
	seen->gshift = UNSET;
	seen->ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, &seen->gbits,
			   &seen->gshift, 0, 0);
	seen->deref = tagged_syscall_works(expect ? expect : &grants[0]);
}

/* flags as given; bits/shift passed as pointers when want_ptr says so. */
static void set_with(unsigned long flags, int pass_bits, int pass_shift,
		     const struct grant *expect)
{
	errno = 0;
	seen->ret = prctl(PR_SET_TAGGED_ADDR_CTRL, flags,
			  pass_bits ? &seen->bits : NULL,
			  pass_shift ? &seen->shift : NULL, 0);
	seen->err = errno;
	after(expect);
}

/*
 * Run the request in a child; @expect is the grant it should get (NULL:
 * refused), whose tag the tagged write(2) uses.
 */
static void in_child(unsigned long flags, int pass_bits, int pass_shift,
		     int bits, const struct grant *expect)
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
		set_with(flags, pass_bits, pass_shift, expect);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		seen->ret = -1000;
}

static int enabled_as(const struct grant *g)
{
	return seen->ret == 0 && seen->ctrl == PR_TAGGED_ADDR_ENABLE &&
	       seen->gbits == g->bits && seen->gshift == g->shift &&
	       seen->deref;
}

static int refused_and_off(int err)
{
	return seen->ret == -1 && seen->err == err && seen->ctrl == 0 &&
	       !seen->deref;
}

/* "BITS@SHIFT[,BITS@SHIFT]", smallest first, each tag below bit 64. */
static int parse_grants(const char *p)
{
	int used;

	for (ngrants = 0; ngrants < MAX_GRANTS; ngrants++) {
		struct grant *g = &grants[ngrants];

		if (sscanf(p, "%d@%d%n", &g->bits, &g->shift, &used) != 2 ||
		    g->bits < 1 || g->shift < 1 || g->bits + g->shift > 64 ||
		    (ngrants && g->bits <= grants[ngrants - 1].bits))
			return -1;
		p += used;
		if (!*p) {
			ngrants++;
			return 0;
		}
		if (*p++ != ',')
			return -1;
	}
	return -1;	/* more grants than any architecture offers */
}

int main(int argc, char **argv)
{
	const struct grant *g, *widest;
	unsigned long n;

	if (argc != 2 || parse_grants(argv[1])) {
		fprintf(stderr,
			"usage: pmlen BITS@SHIFT[,BITS@SHIFT] (the grants, smallest first:\n"
			"       6@57 on UAI, 6@57,15@48 on LAM, 8@56 on arm64)\n");
		return 2;
	}
	widest = &grants[ngrants - 1];
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	/* Up to 16 on every architecture: one past LAM_U48's 15. */
	for (n = 0; n <= 16 || n <= (unsigned long)widest->bits + 1; n++) {
		int off = n && FIELD_NEEDS_OFFSET;

		g = grant_for(n);
		in_child(PR_TAGGED_ADDR_ENABLE | pmlen(n), 0, off, UNSET, g);
		if (g)
			check(enabled_as(g) && (!off || seen->shift == g->shift),
			      "PR_PMLEN %lu: enabled; GET is ENABLE alone (%#lx), its nr_bits/offset the grant %d@%d (%d@%d); write(2) tagged at bits %d and %d %d (ret %ld errno %d)",
			      n, seen->ctrl, g->bits, g->shift, seen->gbits,
			      seen->gshift, g->shift, g->shift + g->bits - 1,
			      seen->deref, seen->ret, seen->err);
		else
			check(refused_and_off(EINVAL),
			      "PR_PMLEN %lu, more than %d: EINVAL, tagging stays off (ret %ld errno %d, ctrl %#lx, tagged write(2) %d)",
			      n, widest->bits, seen->ret, seen->err, seen->ctrl,
			      seen->deref);
	}
	in_child(PR_TAGGED_ADDR_ENABLE | pmlen(127), 0, 0, UNSET, NULL);
	check(refused_and_off(EINVAL),
	      "PR_PMLEN 127 (the field's largest): EINVAL, tagging off (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);

	in_child(PR_TAGGED_ADDR_ENABLE | pmlen(4), 1, 0, 4, NULL);
	check(refused_and_off(EINVAL) && seen->bits == 4,
	      "PR_PMLEN and nr_bits in one call: EINVAL, nr_bits unwritten, tagging off (ret %ld errno %d, nr_bits %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->bits, seen->ctrl);

	/* Each grant asked in the other form than the loop above used. */
	for (g = grants; g <= widest; g++) {
		if (FIELD_NEEDS_OFFSET) {
			in_child(PR_TAGGED_ADDR_ENABLE | pmlen(g->bits), 0, 0,
				 UNSET, NULL);
			check(refused_and_off(EINVAL) && seen->shift == UNSET,
			      "PR_PMLEN %d without an offset pointer: EINVAL, tagging off, as bit 63 is no tag (ret %ld errno %d, ctrl %#lx)",
			      g->bits, seen->ret, seen->err, seen->ctrl);
			continue;
		}
		in_child(PR_TAGGED_ADDR_ENABLE | pmlen(g->bits), 0, 1, UNSET, g);
		check(enabled_as(g) && seen->shift == g->shift,
		      "PR_PMLEN %d with an offset pointer: enabled, offset %d (want %d)",
		      g->bits, seen->shift, g->shift);
	}

	in_child(pmlen(4), 0, 0, UNSET, NULL);
	check(seen->ret == 0 && seen->ctrl == 0 && !seen->deref,
	      "PR_PMLEN 4 without PR_TAGGED_ADDR_ENABLE: ignored, tagging stays off (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);

	in_child(PR_TAGGED_ADDR_ENABLE, 0, 0, UNSET, &grants[0]);
	check(enabled_as(&grants[0]),
	      "the three-argument enable, PR_PMLEN 0, still gets the default %d@%d (ret %ld errno %d, ctrl %#lx)",
	      grants[0].bits, grants[0].shift, seen->ret, seen->err,
	      seen->ctrl);

#ifdef __aarch64__
	{
		unsigned long mte = PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC |
				    (0x5a5aUL << PR_MTE_TAG_SHIFT);

		in_child(mte | pmlen(8), 0, 0, UNSET, &grants[0]);
		check(seen->ret == 0 && (unsigned long)seen->ctrl == mte,
		      "PR_PMLEN 8 beside MTE's TCF and tag mask: GET returns the MTE flags as set, without the field (%#lx, want %#lx)",
		      seen->ctrl, mte);
	}
#endif
	return tap_end();
}
