// SPDX-License-Identifier: GPL-2.0
/*
 * nmi_untag: untags in NMI context, for tagtrace's test of what BPF misses
 * (tests/tool/nmi-guest.sh). The guest has no PMU, so nothing else raises
 * NMIs there; this module sends them.
 *
 *   insmod nmi_untag.ko pid=PID cpu=CPU count=N gap_us=US
 *
 * From the CPU insmod runs on, it sends N NMIs to CPU, each once the
 * last was taken, US microseconds apart. Its NMI handler untags a tagged
 * copy of the interrupted task's user stack pointer (untagged_addr(), the
 * tagged_addr_untag event) when that task belongs to process PID,
 * wherever the task was: in user space, in a system call, or in a BPF
 * program attached to that very event, which the kernel then does not run
 * again (recursion_misses). Each NMI is waited for until it is taken,
 * however long that takes; loading fails (-EIO) if insmod is killed
 * before every NMI arrived. "hits", readable in
 * /sys/module/nmi_untag/parameters, is the number of untags that stripped
 * a tag (the event fires for those alone: the process had tagging on).
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/ptrace.h>
#include <asm/uaccess.h>

static int pid;
module_param(pid, int, 0444);
static int cpu;
module_param(cpu, int, 0444);
static int count = 1000;
module_param(count, int, 0444);
static int gap_us = 100;
module_param(gap_us, int, 0444);
static int hits;
module_param(hits, int, 0444);

/* NMIs sent and not yet taken: the handler claims only those. */
static atomic_t pending = ATOMIC_INIT(0);
static atomic_t untags = ATOMIC_INIT(0);

/* Tag 0x15 in bits 62:57, as LAM_U57 and UAI both take it. */
#define NMI_UNTAG_TAG	(0x15UL << 57)

static int nmi_untag_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned long sp;

	if (atomic_dec_if_positive(&pending) < 0)
		return NMI_DONE;
	if (current->tgid == pid && current->mm &&
	    !(current->flags & PF_KTHREAD)) {
		sp = task_pt_regs(current)->sp | NMI_UNTAG_TAG;
		OPTIMIZER_HIDE_VAR(sp);
		/* The event fires when bits are stripped: the process tags. */
		if ((unsigned long)untagged_addr((void __user *)sp) != sp)
			atomic_inc(&untags);
	}
	return NMI_HANDLED;
}

static int __init nmi_untag_init(void)
{
	int i, sent = 0, err;

	if (!pid || cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu) ||
	    count <= 0 || gap_us <= 0)
		return -EINVAL;
	err = register_nmi_handler(NMI_LOCAL, nmi_untag_handler, 0,
				   "nmi_untag");
	if (err)
		return err;
	/*
	 * One NMI at a time: a CPU latches one NMI while it handles another,
	 * so two sent close together can arrive as one.
	 */
	for (i = 0; i < count; i++) {
		preempt_disable();
		if (smp_processor_id() != cpu) {
			atomic_set(&pending, 1);
			__apic_send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
			sent++;
		}
		preempt_enable();
		/*
		 * Until the NMI is taken, however long its vCPU waits for the
		 * host: a sent NMI is always taken. Only a fatal signal (the
		 * guard against a hang) ends the wait early.
		 */
		while (atomic_read(&pending) && !fatal_signal_pending(current))
			usleep_range(10, 20);
		if (atomic_read(&pending))
			break;
		usleep_range(gap_us, gap_us + gap_us / 4 + 1);
	}
	unregister_nmi_handler(NMI_LOCAL, "nmi_untag");
	hits = atomic_read(&untags);
	pr_info("nmi_untag: %d NMIs sent to CPU %d, %d not taken, %d untags in process %d\n",
		sent, cpu, atomic_read(&pending), hits, pid);
	if (sent != count || atomic_read(&pending))
		return -EIO;
	return 0;
}

static void __exit nmi_untag_exit(void)
{
}

module_init(nmi_untag_init);
module_exit(nmi_untag_exit);
MODULE_DESCRIPTION("tagtrace test: untags in NMI context");
MODULE_LICENSE("GPL");
