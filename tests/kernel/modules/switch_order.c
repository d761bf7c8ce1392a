// SPDX-License-Identifier: GPL-2.0
/*
 * What an NMI finds right after the context switch publishes loaded_mm:
 * from that store on, nmi_uaccess_okay() lets an NMI access the new mm's
 * user memory, so the CPU's untag mask (and, on UAI, EFER.UAI) must
 * already be the new mm's (kernel/series: switch_mm_irqs_off() loads the
 * untag mask before publishing loaded_mm).
 *
 *   insmod switch_order.ko tlbstate=ADDR func=NAME offset=OFF
 *
 * A kprobe at NAME+OFF, the instruction right after the store of
 * loaded_mm (tests/kernel/test-switch-order.sh finds it in vmlinux), runs
 * in an exception before that instruction, as an NMI there would; ADDR is
 * cpu_tlbstate's per-CPU address (loaded_mm is its first member). It
 * compares the CPU's untag mask with the mm that loaded_mm now names.
 *
 * /proc/switch_order reads "checks=C changes=H bad=B efer_bad=E": C
 * switches seen, H of them to an mm whose untag mask differs from the
 * last one published on that CPU (a tagged mm after an untagged one, or
 * the other way), B where the CPU's untag mask was not the new mm's, E
 * where EFER.UAI was not the new mm's mode (UAI kernels only).
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <asm/mmu_context.h>
#include <asm/msr.h>
#include <asm/tlbflush.h>

MODULE_DESCRIPTION("tagtrace test: the untag mask when loaded_mm is published");
MODULE_LICENSE("GPL");

static unsigned long tlbstate;
module_param(tlbstate, ulong, 0444);
static char *func = "switch_mm_irqs_off";
module_param(func, charp, 0444);
static uint offset;
module_param(offset, uint, 0444);

static atomic_t checks, changes, bad, efer_bad;
static DEFINE_PER_CPU(unsigned long, last_mask);

static int switch_order_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct mm_struct *mm, **loaded;
	unsigned long mask;

	loaded = per_cpu_ptr((struct mm_struct * __percpu *)tlbstate,
			     smp_processor_id());
	mm = READ_ONCE(*loaded);
	if ((unsigned long)mm < PAGE_SIZE)
		return 0;
	mask = this_cpu_read(tlbstate_untag_mask);
	atomic_inc(&checks);
	if (mm_untag_mask(mm) != this_cpu_read(last_mask))
		atomic_inc(&changes);
	this_cpu_write(last_mask, mm_untag_mask(mm));
	if (mask != mm_untag_mask(mm))
		atomic_inc(&bad);
#ifdef EFER_UAI
	if (cpu_feature_enabled(X86_FEATURE_UAI)) {
		u64 efer;

		rdmsrl(MSR_EFER, efer);
		if (!!(efer & EFER_UAI) != (mm_tag_mode(mm) == X86_TAG_UAI))
			atomic_inc(&efer_bad);
	}
#endif
	return 0;
}

static struct kprobe switch_order_kp = {
	.pre_handler = switch_order_pre,
};

static int switch_order_show(struct seq_file *m, void *v)
{
	seq_printf(m, "checks=%d changes=%d bad=%d efer_bad=%d\n",
		   atomic_read(&checks), atomic_read(&changes),
		   atomic_read(&bad), atomic_read(&efer_bad));
	return 0;
}

static int switch_order_open(struct inode *inode, struct file *file)
{
	return single_open(file, switch_order_show, NULL);
}

static const struct proc_ops switch_order_ops = {
	.proc_open	= switch_order_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static int __init switch_order_init(void)
{
	int cpu, ret;

	if (!tlbstate || !offset)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		per_cpu(last_mask, cpu) = -1UL;
	if (!proc_create("switch_order", 0444, NULL, &switch_order_ops))
		return -ENOMEM;
	switch_order_kp.symbol_name = func;
	switch_order_kp.offset = offset;
	ret = register_kprobe(&switch_order_kp);
	if (ret)
		remove_proc_entry("switch_order", NULL);
	return ret;
}

static void __exit switch_order_exit(void)
{
	unregister_kprobe(&switch_order_kp);
	remove_proc_entry("switch_order", NULL);
}

module_init(switch_order_init);
module_exit(switch_order_exit);
