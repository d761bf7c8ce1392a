// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel thread that adopts a process's mm with kthread_use_mm() and
 * reads a user pointer the process hands it: what CR3 a kernel thread runs
 * a tagged mm with, and whether a tagged pointer works there
 * (tests/kernel/u48.c).
 *
 * /proc/u48_usemm: a process writes a user address (hex); a new kernel
 * thread adopts the writer's mm, reads CR3 and eight bytes at the address
 * with copy_from_user(), and the write returns when it is done. A read
 * then gives "cr3_lam=0x... ret=R val=0x...": CR3's LAM bits in the
 * thread, copy_from_user()'s uncopied bytes, and the value read.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <asm/special_insns.h>

MODULE_DESCRIPTION("tagtrace test: a tagged mm used by a kernel thread");
MODULE_LICENSE("GPL");

static DEFINE_MUTEX(u48_usemm_lock);

struct u48_usemm_job {
	struct mm_struct *mm;
	unsigned long addr;
	unsigned long cr3_lam;
	unsigned long ret;
	u64 val;
	struct completion done;
};

static struct u48_usemm_job u48_usemm_last;

static int u48_usemm_thread(void *data)
{
	struct u48_usemm_job *job = data;

	kthread_use_mm(job->mm);
	job->cr3_lam = __read_cr3() & (X86_CR3_LAM_U57 | X86_CR3_LAM_U48);
	job->ret = copy_from_user(&job->val,
				  (const void __user *)job->addr,
				  sizeof(job->val));
	kthread_unuse_mm(job->mm);
	complete(&job->done);
	return 0;
}

static ssize_t u48_usemm_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct u48_usemm_job *job = &u48_usemm_last;
	struct task_struct *tsk;
	unsigned long addr;
	int ret;

	ret = kstrtoul_from_user(buf, count, 16, &addr);
	if (ret)
		return ret;

	mutex_lock(&u48_usemm_lock);
	memset(job, 0, sizeof(*job));
	job->addr = addr;
	job->ret = -1UL;
	job->mm = get_task_mm(current);
	if (!job->mm) {
		mutex_unlock(&u48_usemm_lock);
		return -EINVAL;
	}
	init_completion(&job->done);
	tsk = kthread_run(u48_usemm_thread, job, "u48_usemm");
	if (IS_ERR(tsk)) {
		ret = PTR_ERR(tsk);
	} else {
		wait_for_completion(&job->done);
		ret = count;
	}
	mmput(job->mm);
	job->mm = NULL;
	mutex_unlock(&u48_usemm_lock);
	return ret;
}

static int u48_usemm_show(struct seq_file *m, void *v)
{
	mutex_lock(&u48_usemm_lock);
	seq_printf(m, "cr3_lam=0x%lx ret=%lu val=0x%llx\n",
		   u48_usemm_last.cr3_lam, u48_usemm_last.ret,
		   u48_usemm_last.val);
	mutex_unlock(&u48_usemm_lock);
	return 0;
}

static int u48_usemm_open(struct inode *inode, struct file *file)
{
	return single_open(file, u48_usemm_show, NULL);
}

static const struct proc_ops u48_usemm_ops = {
	.proc_open	= u48_usemm_open,
	.proc_read	= seq_read,
	.proc_write	= u48_usemm_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init u48_usemm_init(void)
{
	if (!proc_create("u48_usemm", 0600, NULL, &u48_usemm_ops))
		return -ENOMEM;
	return 0;
}

static void __exit u48_usemm_exit(void)
{
	remove_proc_entry("u48_usemm", NULL);
}

module_init(u48_usemm_init);
module_exit(u48_usemm_exit);
