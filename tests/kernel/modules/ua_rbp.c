// SPDX-License-Identifier: GPL-2.0
/*
 * A user access the compiler bases on %rbp, so through SS, whose tag UAI
 * does not ignore: the kernel's own unsafe_get_user(), given a pointer
 * that lives in %rbp. Writing an int to /proc/<module> reads it through
 * ua_rbp_get(); reading the file gives the last int that arrived.
 *
 * The accessors untag the pointer where UAI is used (uaccess_untag_ptr()),
 * so a tagged pointer arrives. Built with UA_BREAK_UNTAG (ua_rbp_nountag),
 * the module takes that untag out of its own copy of unsafe_get_user(),
 * and the same read through a tagged pointer is a kernel #SS on UAI:
 * EFAULT.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#ifdef UA_BREAK_UNTAG
#undef uaccess_untag_ptr
#define uaccess_untag_ptr(ptr) (ptr)
#endif

MODULE_DESCRIPTION("tagtrace test: unsafe_get_user() through %rbp");
MODULE_LICENSE("GPL");

static int ua_rbp_last;

/*
 * The pointer is made to live in %rbp: an asm that gives it there, and
 * every other register the function could use holding a value that is
 * live across the access. The test checks the instruction objdump shows.
 */
static noinline int ua_rbp_get(const int __user *p, int *v)
{
	register const int __user *q asm("rbp");
	int val;

	asm volatile("mov %1, %0" : "=r" (q) : "r" (p));
	if (!user_access_begin(q, sizeof(*q)))
		return -EFAULT;
	unsafe_get_user(val, q, efault);
	user_access_end();
	*v = val;
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

static ssize_t ua_rbp_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *pos)
{
	int v, ret;

	if (count != sizeof(v))
		return -EINVAL;
	ret = ua_rbp_get((const int __user *)buf, &v);
	if (ret)
		return ret;
	WRITE_ONCE(ua_rbp_last, v);
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
