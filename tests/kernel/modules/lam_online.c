// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel thread per CPU that adopts a LAM process's mm with
 * kthread_use_mm() the moment its CPU comes online, and reads CR3 and CR4
 * there: what the CPU runs a tagged mm with, before the CPU is active.
 *
 * The threads are smpboot threads: the hotplug code unparks them at
 * CPUHP_AP_SMPBOOT_THREADS, on the new CPU and before the dynamic online
 * states (CPUHP_AP_ONLINE_DYN) and CPUHP_AP_ACTIVE. They run SCHED_FIFO
 * above the hotplug thread, so each one runs as soon as it is unparked,
 * while the hotplug thread still has the rest of the online states to go.
 *
 * /proc/lam_online: a process writes "1" to have its mm adopted (it holds
 * a reference until "0", or until the module goes), and reads
 * "runs=R lam=L nolass=N": R adoptions so far, L of them with a LAM mode
 * in CR3, N of those on a CPU whose CR4 (the register, not the kernel's
 * copy) had LASS clear.
 */
#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/smpboot.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <asm/special_insns.h>

MODULE_DESCRIPTION("tagtrace test: a LAM mm adopted on a CPU coming online");
MODULE_LICENSE("GPL");

static DEFINE_SPINLOCK(lam_online_lock);
static struct mm_struct *lam_online_mm;
static atomic_t lam_online_runs, lam_online_lam, lam_online_nolass;

static DEFINE_PER_CPU(struct task_struct *, lam_online_task);
static DEFINE_PER_CPU(bool, lam_online_due);

static int lam_online_should_run(unsigned int cpu)
{
	return __this_cpu_read(lam_online_due);
}

static struct mm_struct *lam_online_get_mm(void)
{
	struct mm_struct *mm;

	spin_lock(&lam_online_lock);
	mm = lam_online_mm;
	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	spin_unlock(&lam_online_lock);
	return mm;
}

static void lam_online_run(unsigned int cpu)
{
	unsigned long cr3, cr4;
	struct mm_struct *mm;

	__this_cpu_write(lam_online_due, false);
	mm = lam_online_get_mm();
	if (!mm)
		return;

	kthread_use_mm(mm);
	cr3 = __read_cr3();
	cr4 = native_read_cr4();
	kthread_unuse_mm(mm);
	mmput(mm);

	atomic_inc(&lam_online_runs);
	if (cr3 & (X86_CR3_LAM_U57 | X86_CR3_LAM_U48)) {
		atomic_inc(&lam_online_lam);
		if (!(cr4 & X86_CR4_LASS))
			atomic_inc(&lam_online_nolass);
	}
}

static void lam_online_setup(unsigned int cpu)
{
	/* Above the hotplug thread (sched_set_fifo_low()). */
	sched_set_fifo(current);
}

/*
 * Called in the thread on its CPU as the CPU goes down and comes back
 * online; smpboot calls .unpark only for a thread that had a .park.
 */
static void lam_online_park(unsigned int cpu)
{
	__this_cpu_write(lam_online_due, false);
}

static void lam_online_unpark(unsigned int cpu)
{
	__this_cpu_write(lam_online_due, true);
}

static struct smp_hotplug_thread lam_online_threads = {
	.store			= &lam_online_task,
	.thread_should_run	= lam_online_should_run,
	.thread_fn		= lam_online_run,
	.setup			= lam_online_setup,
	.park			= lam_online_park,
	.unpark			= lam_online_unpark,
	.thread_comm		= "lam_online/%u",
};

static void lam_online_set_mm(struct mm_struct *mm)
{
	struct mm_struct *old;

	if (mm)
		mmgrab(mm);
	spin_lock(&lam_online_lock);
	old = lam_online_mm;
	lam_online_mm = mm;
	spin_unlock(&lam_online_lock);
	if (old)
		mmdrop(old);
}

static ssize_t lam_online_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	char c;

	if (!count || get_user(c, buf))
		return -EFAULT;
	if (c != '0' && c != '1')
		return -EINVAL;
	lam_online_set_mm(c == '1' ? current->mm : NULL);
	return count;
}

static int lam_online_show(struct seq_file *m, void *v)
{
	seq_printf(m, "runs=%d lam=%d nolass=%d\n",
		   atomic_read(&lam_online_runs), atomic_read(&lam_online_lam),
		   atomic_read(&lam_online_nolass));
	return 0;
}

static int lam_online_open(struct inode *inode, struct file *file)
{
	return single_open(file, lam_online_show, NULL);
}

static const struct proc_ops lam_online_ops = {
	.proc_open	= lam_online_open,
	.proc_read	= seq_read,
	.proc_write	= lam_online_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init lam_online_init(void)
{
	int ret;

	ret = smpboot_register_percpu_thread(&lam_online_threads);
	if (ret)
		return ret;
	if (!proc_create("lam_online", 0600, NULL, &lam_online_ops)) {
		smpboot_unregister_percpu_thread(&lam_online_threads);
		return -ENOMEM;
	}
	return 0;
}

static void __exit lam_online_exit(void)
{
	remove_proc_entry("lam_online", NULL);
	smpboot_unregister_percpu_thread(&lam_online_threads);
	lam_online_set_mm(NULL);
}

module_init(lam_online_init);
module_exit(lam_online_exit);
