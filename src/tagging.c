// SPDX-License-Identifier: GPL-2.0
/*
 * Can a process get tagging here at all? The kernel's types say whether it
 * was built with ADDRESS_MASKING, /proc/cpuinfo's flags what it found in
 * the CPU. Said once at start, and given as the reason of a refused enable
 * whose event has none.
 */
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "probe.h"

void tt_cpu_flags(FILE *f, bool *lam, bool *uai, bool *la57)
{
	char line[4096], *tok, *save;

	*lam = *uai = *la57 = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		tok = strchr(line, ':');
		for (tok = tok ? strtok_r(tok + 1, " \t\n", &save) : NULL; tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			*lam |= !strcmp(tok, "lam");
			*uai |= !strcmp(tok, "uai");
			*la57 |= !strcmp(tok, "la57");
		}
		return;		/* one CPU's flags: the kernel shows the same */
	}
}

/*
 * The kernel first: one without ADDRESS_MASKING refuses every enable
 * whatever the CPU has, and lists the CPU's lam flag all the same (6.12
 * does not clear a feature it leaves unused), nor knows uai.
 */
enum tt_no_tagging tt_probe_no_tagging(const struct tt_probe *p)
{
	if (!p->address_masking)
		return TT_NO_TAGGING_KERNEL;
	if (!p->cpu_lam && !p->cpu_uai)
		return TT_NO_TAGGING_CPU;
	return TT_TAGGING_POSSIBLE;
}


enum tt_no_tagging tt_kernel_refusal(void)
{
	unsigned long bits = 1;
	int c = EOF;
	FILE *f;

	/* EINVAL: a kernel without the option, which BTF already said. */
	if (syscall(SYS_arch_prctl, ARCH_GET_MAX_TAG_BITS, &bits) || bits)
		return TT_TAGGING_POSSIBLE;
	f = fopen("/proc/sys/abi/tagged_addr_disabled", "r");
	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == '1' ? TT_NO_TAGGING_SYSCTL : TT_NO_TAGGING_POLICY;
}
