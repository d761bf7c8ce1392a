// SPDX-License-Identifier: GPL-2.0
/*
 * What the compiler makes of user_access_begin() and unsafe_get_user() in
 * a module: writing an int to /proc/ua_ds reads it from the buffer through
 * ua_ds_get(), whose user_access_begin() is this module's own user-limit
 * check (the untag event's hook in line, patched by the module loader);
 * reading /proc/ua_ds gives the last int written.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

MODULE_DESCRIPTION("tagtrace test: a module's own user access");
MODULE_LICENSE("GPL");

static int ua_ds_last;

static noinline int ua_ds_get(const int __user *p, int *v)
{
	if (!user_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(*v, p, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

static ssize_t ua_ds_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *pos)
{
	int v, ret;

	if (count != sizeof(v))
		return -EINVAL;
	ret = ua_ds_get((const int __user *)buf, &v);
	if (ret)
		return ret;
	WRITE_ONCE(ua_ds_last, v);
	return count;
}

static ssize_t ua_ds_read(struct file *file, char __user *buf, size_t count,
			  loff_t *pos)
{
	char s[16];
	int n = scnprintf(s, sizeof(s), "%d\n", READ_ONCE(ua_ds_last));

	return simple_read_from_buffer(buf, count, pos, s, n);
}

static const struct proc_ops ua_ds_ops = {
	.proc_read	= ua_ds_read,
	.proc_write	= ua_ds_write,
	.proc_lseek	= default_llseek,
};

static int __init ua_init(void)
{
	return proc_create("ua_ds", 0600, NULL, &ua_ds_ops) ? 0 : -ENOMEM;
}

static void __exit ua_exit(void)
{
	remove_proc_entry("ua_ds", NULL);
}

module_init(ua_init);
module_exit(ua_exit);
