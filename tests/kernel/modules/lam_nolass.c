// SPDX-License-Identifier: GPL-2.0
/*
 * A LAM mm switched to on a CPU whose CR4.LASS is clear: while
 * mitigations are on, the switch loads it without LAM (kernel/series:
 * tagging is offered on LAM with mitigations on only because LASS is set
 * on every CPU, and no CPU runs LAM without it).
 *
 * /proc/lam_nolass: a process with LAM writes an int, N; a kernel thread
 * bound to the writer's CPU then, N times, clears LASS on its CPU (the
 * register and the kernel's copy), adopts the writer's mm with
 * kthread_use_mm() (a switch to a LAM mm, which the switch checks),
 * reads CR3 and CR4 there, lets the mm go (kthread_unuse_mm()) and sets
 * LASS again. Each round starts from init_mm (leave_mm()), so that the
 * adoption is a switch. The write returns once the thread is done. A
 * read gives "rounds=R lam=L nolass=N restored=S": rounds run so far,
 * how many of them had a LAM mode in CR3, how many of those ran with
 * CR4.LASS clear, and after how many rounds CR4.LASS was set again.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <asm/mmu_context.h>
#include <asm/special_insns.h>
#include <asm/tlbflush.h>

MODULE_DESCRIPTION("tagtrace test: a LAM mm switched to without LASS");
MODULE_LICENSE("GPL");

static DEFINE_MUTEX(lam_nolass_lock);
static atomic_t lam_nolass_rounds, lam_nolass_lam, lam_nolass_nolass;
static atomic_t lam_nolass_restored;

struct lam_nolass_job {
	struct mm_struct *mm;
	int rounds;
	struct completion done;
};

static int lam_nolass_thread(void *data)
{
	struct lam_nolass_job *job = data;
	unsigned long cr3, cr4;
	int i;

	for (i = 0; i < job->rounds; i++) {
		/*
		 * The CPU may still have the writer's mm loaded, lazily: go
		 * to init_mm first, so that kthread_use_mm() below is a
		 * switch, made without LASS.
		 */
		local_irq_disable();
		leave_mm();
		local_irq_enable();
		cr4_clear_bits(X86_CR4_LASS);
		kthread_use_mm(job->mm);
		cr3 = __read_cr3();
		cr4 = native_read_cr4();
		kthread_unuse_mm(job->mm);
		cr4_set_bits(X86_CR4_LASS);

		atomic_inc(&lam_nolass_rounds);
		if (native_read_cr4() & X86_CR4_LASS)
			atomic_inc(&lam_nolass_restored);
		if (cr3 & (X86_CR3_LAM_U57 | X86_CR3_LAM_U48)) {
			atomic_inc(&lam_nolass_lam);
			if (!(cr4 & X86_CR4_LASS))
				atomic_inc(&lam_nolass_nolass);
		}
	}
	complete(&job->done);
	return 0;
}

static ssize_t lam_nolass_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	struct lam_nolass_job job;
	struct task_struct *tsk;
	int ret;

	if (count != sizeof(job.rounds))
		return -EINVAL;
	if (copy_from_user(&job.rounds, buf, sizeof(job.rounds)))
		return -EFAULT;
	if (job.rounds <= 0)
		return -EINVAL;
	job.mm = get_task_mm(current);
	if (!job.mm)
		return -EINVAL;
	init_completion(&job.done);

	mutex_lock(&lam_nolass_lock);
	tsk = kthread_create(lam_nolass_thread, &job, "lam_nolass");
	if (IS_ERR(tsk)) {
		ret = PTR_ERR(tsk);
	} else {
		kthread_bind(tsk, raw_smp_processor_id());
		wake_up_process(tsk);
		wait_for_completion(&job.done);
		ret = count;
	}
	mutex_unlock(&lam_nolass_lock);
	mmput(job.mm);
	return ret;
}

static int lam_nolass_show(struct seq_file *m, void *v)
{
	seq_printf(m, "rounds=%d lam=%d nolass=%d restored=%d\n",
		   atomic_read(&lam_nolass_rounds),
		   atomic_read(&lam_nolass_lam),
		   atomic_read(&lam_nolass_nolass),
		   atomic_read(&lam_nolass_restored));
	return 0;
}

static int lam_nolass_open(struct inode *inode, struct file *file)
{
	return single_open(file, lam_nolass_show, NULL);
}

static const struct proc_ops lam_nolass_ops = {
	.proc_open	= lam_nolass_open,
	.proc_read	= seq_read,
	.proc_write	= lam_nolass_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init lam_nolass_init(void)
{
	return proc_create("lam_nolass", 0600, NULL, &lam_nolass_ops) ?
		0 : -ENOMEM;
}

static void __exit lam_nolass_exit(void)
{
	remove_proc_entry("lam_nolass", NULL);
}

module_init(lam_nolass_init);
module_exit(lam_nolass_exit);
