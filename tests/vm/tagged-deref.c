// SPDX-License-Identifier: GPL-2.0
/*
 * tagged-deref: does the (emulated) CPU honour pointer tags? Run in the
 * guest with the CPU model the rig booted:
 *
 *   tagged-deref none|lam|uai [no-lass]
 *
 * Checks the CPUID bits the rig promised (LAM, UAI, and LASS with LAM unless
 * the rig was given --no-lass, said here as no-lass), then enables tagging through
 * arch_prctl() and dereferences tagged pointers. With LAM the accesses work
 * and see the same memory as the untagged pointer; without a backend they
 * are killed by SIGSEGV. The host boots lam and uai with tagging offered
 * (tests/lib/offer.sh: UAI with mitigations=off) on the series' kernel, so
 * both must have it: a kernel that reports 0 bits or refuses the enable
 * fails, whatever it says about itself. Prints TAP, exits 1 on any
 * failure.
 */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"

static int cpuid_bit(unsigned int leaf, unsigned int sub, int bit)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(leaf, sub, &a, &b, &c, &d))
		return 0;
	return (a >> bit) & 1;
}

static volatile uint64_t *tag(volatile uint64_t *p, uint64_t t)
{
	return tag_ptr((const void *)p, t);
}

int main(int argc, char **argv)
{
	volatile uint64_t *plain = malloc(sizeof(*plain));
	const char *cpu = argc > 1 ? argv[1] : "";
	int lam = !strcmp(cpu, "lam"), uai = !strcmp(cpu, "uai"), tagging;
	int lass = lam && !(argc > 2 && !strcmp(argv[2], "no-lass"));
	unsigned long mask = 0, bits = 0;
	long r;
	int sig;

	if (!plain || (!lam && !uai && strcmp(cpu, "none")) ||
	    (argc > 2 && strcmp(argv[2], "no-lass")) || argc > 3) {
		fprintf(stderr, "usage: tagged-deref none|lam|uai [no-lass]\n");
		return 2;
	}
	*plain = 41;

	check(cpuid_bit(7, 1, 26) == lam,
	      "CPUID.(7,1):EAX[26] (LAM) is %s on --cpu %s", lam ? "set" : "clear", cpu);
	check(cpuid_bit(0x80000021, 0, 7) == uai,
	      "CPUID.80000021H:EAX[7] (UAI) is %s on --cpu %s", uai ? "set" : "clear", cpu);
	check(cpuid_bit(7, 1, 6) == lass,
	      "CPUID.(7,1):EAX[6] (LASS) is %s on --cpu %s%s", lass ? "set" : "clear",
	      cpu, argc > 2 ? " --no-lass" : "");

	sig = deref_in_child(tag(plain, 0x2a), plain);
	check(sig == SIGSEGV, "before any enable, a tagged dereference gets SIGSEGV (got %d)", sig);

	arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&bits);
	tagging = lam || uai;
	check(bits == (tagging ? TAG_BITS : 0), "ARCH_GET_MAX_TAG_BITS reports %lu, want %lu",
	      bits, tagging ? (unsigned long)TAG_BITS : 0UL);

	errno = 0;
	r = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6);
	if (tagging)
		check(r == 0, "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6) succeeds (%s)", strerror(errno));
	else
		check(r == -1 && errno == ENODEV,
		      "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6) fails with ENODEV without a backend (%s)",
		      strerror(errno));

	arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask);
	check(mask == (tagging ? ~TAG_MASK : ~0UL), "untag mask is %#lx", mask);

	sig = deref_in_child(tag(plain, 0x2a), plain);
	if (tagging)
		check(sig == 0, "a pointer tagged 0x2a in bits 62:57 reads and writes the same memory (got %d)", sig);
	else
		check(sig == SIGSEGV, "a tagged dereference is killed by SIGSEGV (got %d)", sig);

	sig = deref_in_child(tag(plain, 0x3f), plain);
	check(sig == (tagging ? 0 : SIGSEGV), "tag 0x3f (all six bits) %s (got %d)",
	      tagging ? "works" : "gets SIGSEGV", sig);

	/*
	 * LAM never ignores bit 63. UAI hardware ignores bits 63:57 of user
	 * data references, so the CPU lets this through; the kernel's ABI
	 * still never treats bit 63 as a tag (tests/kernel/ checks system
	 * calls refuse such pointers).
	 */
	sig = deref_in_child((volatile uint64_t *)((uintptr_t)plain | 1ULL << 63), plain);
	if (uai && tagging)
		check(sig == 0, "UAI hardware ignores bit 63 of a dereference (got %d)", sig);
	else
		check(sig == SIGSEGV, "bit 63 set: the dereference gets SIGSEGV (got %d)", sig);

	sig = deref_in_child((volatile uint64_t *)((uintptr_t)plain | 1ULL << 56), plain);
	check(sig == SIGSEGV, "bit 56 is not a tag bit: setting it gets SIGSEGV (got %d)", sig);

	return tap_end();
}
