/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every layout both sides of tagtrace read: the ring buffer record, the
 * per-process counters, the histogram keys and the values of the kernel's
 * tagged_addr events. Included by bpf/tagtrace.bpf.c (with vmlinux.h) and by
 * the frontend in src/ (with <linux/types.h>).
 */
#ifndef TAGTRACE_H
#define TAGTRACE_H

#define TT_COMM_LEN	16
#define TT_HIST_SLOTS	32	/* log2 buckets of nanoseconds */
/*
 * Tag values counted per process in a dense array: LAM_U57 and UAI grant
 * 6 bits (at 57), so 0-63; tag 0 is an untagged pointer. LAM_U48's 15 bits
 * (at 48) give 32768 values: those past the array go to the wide_tags map,
 * a sparse count per (process, event kind, value) bounded at TT_WIDE_TAGS
 * entries, whose overflow is counted in stats[TT_STAT_WIDE_FULL].
 */
#define TT_TAG_VALUES	64
#define TT_TAG_VALUES_MAX	32768	/* 15 bits */
#define TT_WIDE_TAGS	16384
#define TT_NO_SYSCALL	(-1)	/* kernel, io_uring thread; user mode */

/* Event kinds: ring buffer record type, counter index, -e names. */
enum tt_event_kind {
	TT_EV_CTRL,
	TT_EV_UNTAG,
	TT_EV_SWITCH,
	TT_EV_FAULT,
	TT_EV_GP,
	TT_EV_MAX,
};

/* Tagging modes: the kernel's TAGGED_ADDR_MODE_* values, then ours. */
enum tt_mode {
	TT_MODE_NONE	= 0,
	TT_MODE_LAM_U57	= 1,
	TT_MODE_UAI	= 2,
	TT_MODE_LAM_U48	= 3,	/* never granted by Linux; decoded for CR3 */
	TT_MODE_MAX,
};

/* tagged_addr_ctrl's interface and op (the kernel's TAGGED_ADDR_IF/OP_*) */
enum tt_ctrl_if {
	TT_IF_PRCTL,
	TT_IF_ARCH_PRCTL,
	TT_IF_EXEC,
	TT_IF_MAX,
};

enum tt_ctrl_op {
	TT_OP_ENABLE,
	TT_OP_DISABLE,
	TT_OP_QUERY,
	TT_OP_RESET,
	TT_OP_MAX,
};

/*
 * tagged_addr_ctrl's reason (the kernel's TAGGED_ADDR_REFUSED_*): why a
 * process left untagged could not enable. The fallbacks cannot tell.
 */
enum tt_ctrl_reason {
	TT_REASON_UNKNOWN = -1,	/* fallback: upstream has no such field */
	TT_REASON_NONE,
	TT_REASON_NO_BACKEND,
	TT_REASON_SYSCTL,
	TT_REASON_NO_LASS,	/* LAM, mitigations on, LASS off */
	TT_REASON_UAI_MITIGATIONS,
	TT_REASON_UAI_NO_SMAP,	/* UAI, SMAP not enabled */
	TT_REASON_MAX,
};

/*
 * Why no process can get tagging on this machine, found by the frontend at
 * start: the reason a refused enable gets where the kernel's event has
 * none (the fallbacks).
 */
enum tt_no_tagging {
	TT_TAGGING_POSSIBLE,
	TT_NO_TAGGING_CPU,	/* neither LAM nor UAI in the CPU */
	TT_NO_TAGGING_KERNEL,	/* a kernel without ADDRESS_MASKING */
	TT_NO_TAGGING_SYSCTL,	/* abi.tagged_addr_disabled is set */
	TT_NO_TAGGING_POLICY,	/* the kernel refuses this CPU's backend */
	TT_NO_TAGGING_MAX,
};

/*
 * Where each event kind comes from, reported by the frontend once at start.
 * The kernel events are the tagged_addr tracepoints; the fallbacks serve
 * kernels without them (upstream 6.12's LAM).
 */
enum tt_source {
	TT_SRC_NONE,		/* unavailable on this kernel */
	TT_SRC_TP_BTF,		/* tp_btf/tagged_addr_* */
	TT_SRC_RAW_TP,		/* raw_tp/tagged_addr_* */
	TT_SRC_FEXIT,		/* fexit/do_arch_prctl_64 */
	TT_SRC_KRETPROBE,	/* kretprobe/do_arch_prctl_64 */
	TT_SRC_FENTRY,		/* fentry+fexit/switch_mm_irqs_off */
	TT_SRC_KPROBE,		/* kprobe+kretprobe/switch_mm_irqs_off */
	TT_SRC_PF_BTF,		/* tp_btf/page_fault_user */
	TT_SRC_PF_RAW,		/* raw_tp/page_fault_user */
	TT_SRC_MAX,
};

struct tt_ctrl {
	__s32 interface;
	__s32 op;
	__s32 req_bits;
	__s32 granted_bits;
	__s32 offset;
	__s32 mode;
	__s32 reason;		/* enum tt_ctrl_reason */
	__s32 __pad;
	__u64 untag_mask;
	__s64 ret;
};

struct tt_untag {
	__u64 tagged;
	__u64 untagged;
	__u64 caller;
	__s32 mode;
	__s32 syscall;		/* orig_ax of the task's registers, or -1 */
	__u32 tag;		/* the stripped bits, at the granted offset */
	__u32 pad;
};

struct tt_switch {
	__u64 prev_mm;
	__u64 next_mm;
	__s32 prev_pid;
	__s32 next_pid;
	__s32 prev_mode;
	__s32 next_mode;
	__u64 cr3_lam;
	__u8 efer_written;
};

struct tt_fault {
	__u64 address;
	__u64 untagged;
	__u64 error_code;
	__u64 ip;
	__s32 mode;
	__u32 tag;		/* the tag the faulting pointer carried; 0: none */
	__u64 tagged;		/* that pointer (event field or register), or 0 */
};

struct tt_gp {
	__u64 ip;
	__u64 address;
	__s32 mode;
	__s32 trap;		/* x86 trap number: 13 #GP, 12 #SS */
};

/*
 * Where a tagged fault or a #GP/#SS happened: the user IP (and with
 * --stack the return addresses above it), each with the file it is in and
 * its offset there, read from the VMA at the event. A record of those
 * kinds is followed by its frames (the record's size says how many), so a
 * process that dies of the fault can still be symbolized: the frontend
 * finds the file by the path BPF put in the files map, once a file.
 */
#define TT_STACK_MAX	16

struct tt_file_key {
	__u64 ino;
	__u32 dev;		/* the superblock's s_dev, kernel encoding */
	/*
	 * EBUSY when BPF could not look the frame's VMA up (once per
	 * interrupts-off section on a CPU, as at a page fault), else 0.
	 */
	__u32 pad;
};

struct tt_frame {
	__u64 ip;
	__u64 file_off;		/* ip's offset in the file */
	struct tt_file_key file;	/* ino 0: not in a file (or unknown) */
};

/*
 * A file's path, as its names from the file up to the root of the mount
 * tree (name[0] the file's own); a name longer than TT_NAME_LEN - 1 or a
 * path deeper than TT_PATH_DEPTH is cut and says so.
 */
#define TT_PATH_DEPTH	16
#define TT_NAME_LEN	64

struct tt_path {
	__u32 depth;
	__u32 complete;		/* reached the root, no name cut */
	char name[TT_PATH_DEPTH][TT_NAME_LEN];
};

/* One ring buffer record: who, where, when, then the event's fields. */
struct tt_record {
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 cpu;
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 kind;		/* enum tt_event_kind */
	char comm[TT_COMM_LEN];
	union {
		struct tt_ctrl ctrl;
		struct tt_untag untag;
		struct tt_switch sw;
		struct tt_fault fault;
		struct tt_gp gp;
	};
};

/*
 * A process for its lifetime: a PID the kernel hands out again belongs to a
 * process with another start time, so it gets another entry.
 */
struct tt_proc_key {
	__u32 tgid;
	__u32 pad;
	__u64 start_ns;		/* the group leader's task->start_boottime */
};

/* Per-process counters; only ever incremented. */
struct tt_proc {
	__u64 count[TT_EV_MAX];
	__u64 tagged_faults;	/* of count[TT_EV_FAULT]: those with a tag */
	__s32 mode;		/* the process's mode at its last event */
	__s32 tag_bits;
	char comm[TT_COMM_LEN];	/* the group leader's, refreshed at exec */
	__u32 exited;		/* its last thread has exited */
	__u32 pad;
};

/*
 * A CPU's cache of process rows, the slots map's one value per CPU: the
 * counts of the events of the process in slot (tgid % TT_SLOTS) since it
 * took the slot, added there without a hash lookup. A slot is taken only
 * from a process that has no row any more (pruned), and its counts never
 * move: a process's count is its row's copies plus the slots that hold it.
 * tgid 0: a free slot, or one being taken.
 */
#define TT_SLOTS	64

struct tt_slot {
	__u32 tgid;
	__u32 pad;
	__u64 start_ns;
	__u64 count[TT_EV_MAX];
	__u64 tagged_faults;
	__s32 mode;		/* the row's state when last compared */
	__s32 tag_bits;
};

struct tt_slots {
	struct tt_slot slot[TT_SLOTS];
	__u32 busy;		/* in count() on this CPU: an NMI takes the row */
	__u32 pad;
};

/* Tag values a process used, tags map value (tagtrace tags). */
struct tt_tags {
	__u64 untag[TT_TAG_VALUES];	/* untag events, by tag stripped */
	__u64 fault[TT_TAG_VALUES];	/* faults, by tag carried (0: none) */
};

/* wide_tags map key: a tag value >= TT_TAG_VALUES of a process's events. */
struct tt_wide_key {
	struct tt_proc_key proc;
	__u32 kind;			/* TT_EV_UNTAG or TT_EV_FAULT */
	__u32 tag;
};

/*
 * locs map key: a process's tagged faults and #GPs by where they happened
 * (the IP's file and offset in it; the IP itself outside any file).
 */
struct tt_loc_key {
	struct tt_proc_key proc;
	struct tt_file_key file;
	__u64 off;		/* in the file; the IP when file.ino is 0 */
	__u32 kind;		/* TT_EV_FAULT or TT_EV_GP */
	__u32 pad;
};

#define TT_LOCS		4096

/* Untag events of a process by the system call that carried the pointer. */
struct tt_sys_key {
	struct tt_proc_key proc;
	__s32 nr;			/* x86_64 number, or TT_NO_SYSCALL */
	__u32 pad;
};

/* A histogram per (prev mode, next mode, same mm) of switch_mm time. */
struct tt_hist_key {
	__u32 prev_mode;
	__u32 next_mode;
	__u32 same_mm;
	__u32 pad;
};

/*
 * The hists map is a per-CPU array, one histogram per transition at this
 * index: switch_mm_irqs_off() runs with interrupts off, so each CPU adds
 * to its own copy without atomics and the frontend sums them.
 */
#define TT_HIST_KEYS	(TT_MODE_MAX * TT_MODE_MAX * 2)

static inline __u32 tt_hist_index(__u32 prev_mode, __u32 next_mode,
				  __u32 same_mm)
{
	return (prev_mode * TT_MODE_MAX + next_mode) * 2 + !!same_mm;
}

/*
 * The lowest bit of the tag field an untag mask clears: 57 for LAM_U57
 * and UAI, 48 for LAM_U48; 0 when it clears none. Loop-free, for BPF.
 */
static inline int tt_tag_offset(__u64 untag_mask)
{
	__u64 field = ~untag_mask;
	int off = 0;

	if (!field)
		return 0;
	if (!(field & 0xffffffffULL)) {
		field >>= 32;
		off += 32;
	}
	if (!(field & 0xffffULL)) {
		field >>= 16;
		off += 16;
	}
	if (!(field & 0xffULL)) {
		field >>= 8;
		off += 8;
	}
	if (!(field & 0xfULL)) {
		field >>= 4;
		off += 4;
	}
	if (!(field & 0x3ULL)) {
		field >>= 2;
		off += 2;
	}
	return off + !(field & 1);
}

/* The switches are the sum of the slots. */
struct tt_hist {
	__u64 slots[TT_HIST_SLOTS];
	__u64 sum;		/* in the histogram's unit (ns or us) */
};

/* The kernel's name for an untag call site, "%pS" of it: syms map value. */
#define TT_SYM_LEN	64

struct tt_sym {
	char name[TT_SYM_LEN];
};

#define TT_CHECK_COMM	"tagtrace-check"

/* Global counters in an array map, index enum tt_stat. */
enum tt_stat {
	TT_STAT_DROPS,		/* ring buffer reserve failures */
	TT_STAT_PROC_FULL,	/* events not counted: process map full */
	TT_STAT_HIST_FULL,	/* switches not counted: a mode past TT_MODE_MAX */
	TT_STAT_TAGS_FULL,	/* tags/syscalls not counted: a map full */
	/*
	 * Events not counted: a map's bucket was locked on this CPU (-EBUSY:
	 * an NMI-time event while an update was under way), not full.
	 */
	TT_STAT_BUSY,
	TT_STAT_WIDE_FULL,	/* tag values >= 64 not counted: wide_tags full */
	TT_STAT_LOCS_FULL,	/* locations not counted: locs full */
	/*
	 * Events of the frontend's own check that its sources fire (its
	 * thread named TT_CHECK_COMM while check is set): counted here
	 * only. No tagtrace reports another's check either.
	 */
	TT_STAT_CHECK_CTRL,
	TT_STAT_CHECK_GP,
	/* TT_STAT_DROPS by event kind: TT_EV_MAX counters from here. */
	TT_STAT_DROPS_KIND,
	TT_STAT_MAX = TT_STAT_DROPS_KIND + TT_EV_MAX,
};

#endif /* TAGTRACE_H */
