// SPDX-License-Identifier: GPL-2.0
/*
 * A user access through SS that the module loader cannot see, to make the
 * kernel #SS that UAI raises for a tagged pointer there.
 *
 * The access's exception table entry is on an alternative: the original
 * instruction reads through DS, and the loader decodes it before
 * apply_alternatives(), so the module loads where UAI is offered; the
 * replacement, patched in there (X86_FEATURE_UNTAG_UACCESS), reads the
 * same address through %rbp, so through SS, which UAI does not untag.
 * Elsewhere the DS read stays.
 *
 * Writing an int to /proc/ua_ss_alt reads it at that instruction; reading
 * the file gives the last int that arrived. Where UAI is on for the
 * writer and its pointer is tagged, the read is a kernel #SS: the write
 * fails with EFAULT, and the kernel says so in its log, once
 * (tagged_addr_kernel_ss()), and on the tagged_addr_gp event every time.
 */
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <asm/alternative.h>
#include <asm/asm.h>
#include <asm/cpufeatures.h>
#define UA_OWN_INIT
#include "ua.h"

MODULE_DESCRIPTION("tagtrace test: a user access through SS behind an alternative");

static int ua_ss_alt_last;

static noinline int ua_ss_alt_get(const int __user *p, int *v)
{
	int err = 0, val = 0;

	if (!user_access_begin(p, sizeof(*p)))
		return -EFAULT;
	asm volatile("mov %[p], %%rbp\n"
		     "1: "
		     ALTERNATIVE("movl (%[p]), %[val]",
				 "movl 0(%%rbp), %[val]",
				 X86_FEATURE_UNTAG_UACCESS) "\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_EFAULT_REG, %[err])
		     : [err] "+r" (err), [val] "+r" (val)
		     : [p] "r" (p)
		     : "rbp", "memory");
	user_access_end();
	if (err)
		return err;
	*v = val;
	return 0;
}

static ssize_t ua_ss_alt_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *pos)
{
	int v, ret;

	if (count != sizeof(v))
		return -EINVAL;
	ret = ua_ss_alt_get((const int __user *)buf, &v);
	if (ret)
		return ret;
	WRITE_ONCE(ua_ss_alt_last, v);
	return count;
}

static ssize_t ua_ss_alt_read(struct file *file, char __user *buf,
			      size_t count, loff_t *pos)
{
	char s[16];
	int n = scnprintf(s, sizeof(s), "%d\n", READ_ONCE(ua_ss_alt_last));

	return simple_read_from_buffer(buf, count, pos, s, n);
}

static const struct proc_ops ua_ss_alt_ops = {
	.proc_read	= ua_ss_alt_read,
	.proc_write	= ua_ss_alt_write,
	.proc_lseek	= default_llseek,
};

static int __init ua_init(void)
{
	return proc_create("ua_ss_alt", 0600, NULL, &ua_ss_alt_ops) ?
		0 : -ENOMEM;
}

static void __exit ua_exit(void)
{
	remove_proc_entry("ua_ss_alt", NULL);
}

module_init(ua_init);
module_exit(ua_exit);
