/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test modules of tests/kernel/test-module.sh: each has user-access
 * instructions in its exception table, as a module's own
 * unsafe_get_user() puts there, in a function that is never called.
 * The kernel decides whether to load a module from those bytes alone
 * (module_finalize(), kernel/series), before any of its code runs.
 */
#include <linux/module.h>
#include <asm/asm.h>

/* One user-access instruction with its fixup (EX_TYPE_UACCESS). */
#define UA_SITE(insn)							\
	asm volatile("1: " insn "\n2:\n" _ASM_EXTABLE_UA(1b, 2b)	\
		     ::: "rax", "memory")

/* The same instruction with a fixup that is not a user access's. */
#define KERNEL_SITE(insn)						\
	asm volatile("1: " insn "\n2:\n" _ASM_EXTABLE(1b, 2b)		\
		     ::: "rax", "memory")

#ifndef UA_OWN_INIT
static int __init ua_init(void)
{
	return 0;
}

static void __exit ua_exit(void)
{
}

module_init(ua_init);
module_exit(ua_exit);
#endif
MODULE_LICENSE("GPL");
