// SPDX-License-Identifier: GPL-2.0
/*
 * ua_rbp (and ua_rbp_nountag, the same with the untag taken out of its
 * accessors: ua_rbp_get.c): writing an int to /proc/<module> reads it
 * from the buffer twice, through ua_rbp_get() (the kernel's accessor,
 * whose pointer GCC keeps in %rbp) and ua_rbp_asm_get() (assembly that
 * reads through %rbp); the write fails with the first error. Reading the
 * file gives the last int that arrived.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <asm/asm.h>
#include "ua_rbp.h"

MODULE_DESCRIPTION("tagtrace test: user accesses through %rbp");
MODULE_LICENSE("GPL");

const int __user *ua_rbp_ptr;
static DEFINE_MUTEX(ua_rbp_lock);
static int ua_rbp_last;

/* A call the pointer must survive, in a callee-saved register. */
noinline void ua_rbp_call(void)
{
	barrier();
}

/*
 * A read written in assembly through %rbp, of the pointer
 * uaccess_untag_ptr() gives (UA_BREAK_UNTAG: of the caller's).
 */
static noinline long ua_rbp_asm_get(void)
{
	const int __user *p = READ_ONCE(ua_rbp_ptr);
	int err = 0, val = 0;

	if (!user_access_begin(p, sizeof(*p)))
		return -EFAULT;
	asm volatile("mov %[p], %%rbp\n"
		     "1:\tmovl 0(%%rbp), %[val]\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_EFAULT_REG, %[err])
		     : [err] "+a" (err), [val] "+d" (val)
		     : [p] "r" (uaccess_untag_ptr(p))
		     : "rbp", "memory");
	user_access_end();
	return err ? err : (unsigned int)val;
}

static ssize_t ua_rbp_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *pos)
{
	long a, b;

	if (count != sizeof(int))
		return -EINVAL;
	mutex_lock(&ua_rbp_lock);
	WRITE_ONCE(ua_rbp_ptr, (const int __user *)buf);
	a = ua_rbp_get();
	b = a < 0 ? a : ua_rbp_asm_get();
	mutex_unlock(&ua_rbp_lock);
	if (a < 0)
		return a;
	if (b < 0)
		return b;
	if (a != b)
		return -EIO;
	WRITE_ONCE(ua_rbp_last, (int)a);
	return count;
}

static ssize_t ua_rbp_read(struct file *file, char __user *buf, size_t count,
			   loff_t *pos)
{
	char s[16];
	int n = scnprintf(s, sizeof(s), "%d\n", READ_ONCE(ua_rbp_last));

	return simple_read_from_buffer(buf, count, pos, s, n);
}

static const struct proc_ops ua_rbp_ops = {
	.proc_read	= ua_rbp_read,
	.proc_write	= ua_rbp_write,
	.proc_lseek	= default_llseek,
};

static int __init ua_init(void)
{
	return proc_create(KBUILD_MODNAME, 0600, NULL, &ua_rbp_ops) ?
		0 : -ENOMEM;
}

static void __exit ua_exit(void)
{
	remove_proc_entry(KBUILD_MODNAME, NULL);
}

module_init(ua_init);
module_exit(ua_exit);
