// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace's BPF side. The kernel's tagged_addr tracepoints are the primary
 * sources (tp_btf, with raw_tp twins for kernels whose BTF cannot type the
 * event); kernels without them (upstream 6.12's LAM) get fallbacks: enables
 * from do_arch_prctl_64's return, mode switches from switch_mm_irqs_off
 * comparing the CPU's previous mm with the next, faults from
 * exceptions:page_fault_user. The frontend picks one program per source
 * with bpf_program__set_autoload() and says which it got.
 *
 * Every event bumps a per-process counter (exact, whatever the ring buffer
 * does) and, when the frontend streams that kind, goes into the ring
 * buffer; a failed reserve is counted in stats[TT_STAT_DROPS].
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tagtrace.h"

char LICENSE[] SEC("license") = "GPL";

#define ARCH_GET_UNTAG_MASK	0x4001
#define ARCH_ENABLE_TAGGED_ADDR	0x4002
#define ARCH_GET_MAX_TAG_BITS	0x4003
#define CR3_LAM_U57		(1ULL << 61)
#define CR3_LAM_U48		(1ULL << 62)
#define PF_IO_WORKER		0x00000010
#define PF_KTHREAD		0x00200000
/* The tag field when an mm does not say: 6 bits at 57 (bit 63 never). */
#define TAG_FIELD_DEFAULT	(0x3fULL << 57)
/* A register this near a fault's address is the pointer that faulted. */
#define FAULT_REG_WINDOW	(64 * 1024)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define EEXIST			17
#define EBUSY			16

/* Set by the frontend between open and load. */
const volatile __u32 targ_tgid;			/* 0: every process */
/* The PID namespace targ_tgid is a number of; 0: the initial one. */
const volatile __u64 targ_pidns_dev;
const volatile __u64 targ_pidns_ino;
const volatile char targ_comm[TT_COMM_LEN];	/* "": every command */
const volatile __u32 targ_stream;		/* 1 << kind: to the ring buffer */
const volatile bool targ_hist;			/* time switch_mm_irqs_off */
const volatile bool targ_usec;			/* hist in us, not ns */
const volatile bool targ_switch_events;		/* fallback mode switch events */
const volatile bool targ_count;			/* per-process counters (top) */
const volatile bool targ_tags;			/* tags and syscalls maps */
const volatile __u32 targ_frames;		/* located frames, 1..TT_STACK_MAX */
const volatile __u32 targ_wakeup_bytes;		/* 0: the kernel's wake-ups */
const volatile __u64 targ_wakeup_ns;
const volatile __u32 targ_nr_cpus;		/* copies of a per-CPU value */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/*
 * A row per process, a copy per CPU: an event adds to its CPU's copy, so
 * no two CPUs write one cache line; the frontend sums the counts. The
 * state (mode, tag bits, comm) is written to every copy (proc_state()),
 * exited to the copy of the CPU that saw the exit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct tt_proc_key);
	__type(value, struct tt_proc);
} procs SEC(".maps");

/* Each CPU's slots: the counting fast path (count()). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tt_slots);
} slots SEC(".maps");

/*
 * tags and syscalls: as many processes as procs (the frontend prunes all
 * three alike), 1 entry when not wanted. A process's tag values take 1 KiB:
 * allocated as processes come, not all at load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_proc_key);
	__type(value, struct tt_tags);
} tags SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4 * 10240);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_sys_key);
	__type(value, __u64);
} syscalls SEC(".maps");

/* Tag values past the tags map's array (LAM_U48), sparse and bounded. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_WIDE_TAGS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_wide_key);
	__type(value, __u64);
} wide_tags SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_HIST_KEYS);
	__type(key, __u32);
	__type(value, struct tt_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Names of untag call sites, filled once per site while untag events are
 * streamed: the frontend prints them without reading /proc/kallsyms.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct tt_sym);
} syms SEC(".maps");

/* tags: each process's tagged faults and #GPs by where, as wide_tags. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_LOCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_loc_key);
	__type(value, __u64);
} locs SEC(".maps");

/* The path of each file a located frame is in: filled once a file. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_file_key);
	__type(value, struct tt_path);
} files SEC(".maps");

/*
 * A located record is built here, its frames right after it, then copied
 * to the ring buffer whole: over BPF's 512-byte stack.
 */
struct located {
	struct tt_record r;
	struct tt_frame f[TT_STACK_MAX];
	__u64 ips[TT_STACK_MAX];
	struct tt_path path;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct located);
} located_buf SEC(".maps");

/*
 * The untag caller this CPU last made sure syms names: a storm comes from
 * few call sites, so most events skip the hash lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_caller SEC(".maps");

/*
 * switch_mm_irqs_off() state, per CPU (it runs with irqs off): what entry
 * saw, for the exit, and the mm the last switch loaded on this CPU.
 */
struct sw_start {
	__u64 ts;
	struct mm_struct *prev;
	struct mm_struct *next;
	struct task_struct *tsk;
	struct mm_struct *loaded;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_start);
} sw_starts SEC(".maps");

/* do_arch_prctl_64 arguments between kprobe and kretprobe, by tid. */
struct prctl_args {
	__s32 option;
	__u64 arg2;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct prctl_args);
} prctl_args SEC(".maps");

/*
 * Only the *_tlb programs use it, and the frontend loads them only where
 * /proc/kallsyms lists it (CONFIG_KALLSYMS_ALL): the verifier needs its
 * address. Weak, so that the object opens where BTF lacks it too.
 */
extern struct tlb_state cpu_tlbstate __ksym __weak;

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	/* Per-CPU, but an NMI (an untag in a perf handler) can interrupt. */
	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * The value at key, inserting init first when there is none; NULL after
 * counting why not: the map full (full, a stat index), or its bucket
 * locked by this CPU already (-EBUSY, an event in NMI context while an
 * update was under way), which is no lack of room.
 */
static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *init, __u32 full)
{
	void *v = bpf_map_lookup_elem(map, key);
	long err;

	if (v)
		return v;
	/* -EEXIST: another CPU inserted it meanwhile, as good. */
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		stat_inc(err == -EBUSY ? TT_STAT_BUSY : full);
		return NULL;
	}
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		stat_inc(full);	/* deleted meanwhile: pruned */
	return v;
}

static __always_inline bool comm_matches(void)
{
	char comm[TT_COMM_LEN];
	int i;

	if (!targ_comm[0])
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
#pragma unroll
	for (i = 0; i < TT_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The current thread group's id in targ_tgid's PID namespace; 0 for a task
 * in another (an ancestor, or one nested deeper): no -p there names it.
 */
static __always_inline __u32 current_tgid(void)
{
	struct bpf_pidns_info ns;

	if (!targ_pidns_ino)
		return bpf_get_current_pid_tgid() >> 32;
	if (bpf_get_ns_current_pid_tgid(targ_pidns_dev, targ_pidns_ino, &ns,
					sizeof(ns)))
		return 0;
	return ns.tgid;
}

/* The -p and -c filters; free (dead code to the verifier) when unset. */
/*
 * Set by the frontend while it checks that its sources fire: it makes a
 * query and takes a #GP itself, under the name TT_CHECK_COMM.
 */
bool check;

/*
 * An event of a tagtrace's own check, this one's or another's running
 * beside it: never reported. Counted (stat) only while this one checks.
 */
static __always_inline bool is_check(__u32 stat)
{
	static const char name[] = TT_CHECK_COMM;
	char comm[TT_COMM_LEN];
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < sizeof(name); i++)
		if (comm[i] != name[i])
			return false;
	if (check)
		stat_inc(stat);
	return true;
}

static __always_inline bool wanted(void)
{
	if (targ_tgid && current_tgid() != targ_tgid)
		return false;
	return comm_matches();
}

/* Tag bits an untag mask clears: 64 minus its population count. */
static __always_inline int mask_tag_bits(__u64 mask)
{
	mask = mask - ((mask >> 1) & 0x5555555555555555ULL);
	mask = (mask & 0x3333333333333333ULL) +
	       ((mask >> 2) & 0x3333333333333333ULL);
	mask = (mask + (mask >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return 64 - (int)((mask * 0x0101010101010101ULL) >> 56);
}

/*
 * An mm's tagging mode. The series records it in context.tag_mode; upstream
 * LAM has only the CR3 bits it loads. Kernels without ADDRESS_MASKING have
 * neither and never tag.
 */
static __always_inline int mm_mode(struct mm_struct *mm)
{
	__u64 lam;

	if (!mm)
		return TT_MODE_NONE;
	if (bpf_core_field_exists(mm->context.tag_mode))
		return BPF_CORE_READ(mm, context.tag_mode);
	if (!bpf_core_field_exists(mm->context.lam_cr3_mask))
		return TT_MODE_NONE;
	lam = BPF_CORE_READ(mm, context.lam_cr3_mask);
	if (lam & CR3_LAM_U57)
		return TT_MODE_LAM_U57;
	if (lam & CR3_LAM_U48)
		return TT_MODE_LAM_U48;
	return TT_MODE_NONE;
}

static __always_inline __u64 mm_untag_mask(struct mm_struct *mm)
{
	if (!mm || !bpf_core_field_exists(mm->context.untag_mask))
		return ~0ULL;
	return BPF_CORE_READ(mm, context.untag_mask);
}

static __always_inline struct mm_struct *current_mm(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return BPF_CORE_READ(task, mm);
}

/*
 * The current process's key: its tgid and its group leader's start, in
 * boot time: /proc/PID/stat's starttime is the same clock, in ticks, so
 * the frontend can tell a process from a later one with its PID. Read
 * through the BTF-typed task, plain loads where BPF_CORE_READ would make
 * a bpf_probe_read_kernel() call of each: this runs on every event.
 */
static __always_inline struct tt_proc_key current_key(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tt_proc_key key = {
		.tgid = task->tgid,
		.start_ns = task->group_leader->start_boottime,
	};

	return key;
}

/* Has the current process's last thread begun to exit? */
static __always_inline bool current_group_dead(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return !BPF_CORE_READ(task, signal, live.counter);
}

#define TT_MAX_CPUS	4096

/*
 * A process's state into every CPU's copy of its row, so that the copy an
 * event finds tells whether the state changed: mode/tag_bits < 0 and a
 * NULL comm leave that field alone. Rare: at a process's first event, at
 * a change of mode, at exec.
 */
static __always_inline void proc_state(const struct tt_proc_key *key,
				       int mode, int tag_bits,
				       const char *comm)
{
	struct tt_proc *q;
	__u32 cpu;

	for (cpu = 0; cpu < TT_MAX_CPUS && cpu < targ_nr_cpus; cpu++) {
		q = bpf_map_lookup_percpu_elem(&procs, key, cpu);
		if (!q)
			break;	/* pruned meanwhile */
		if (mode >= 0)
			q->mode = mode;
		if (tag_bits >= 0)
			q->tag_bits = tag_bits;
		if (comm)
			__builtin_memcpy(q->comm, comm, TT_COMM_LEN);
	}
}

/*
 * The current process's row (this CPU's copy), made at its first event;
 * NULL when procs is full (counted in stats).
 */
static __always_inline struct tt_proc *proc_row(const struct tt_proc_key *key)
{
	struct tt_proc *p = bpf_map_lookup_elem(&procs, key);

	if (!p) {
		/* A process may have enabled tagging before we started. */
		struct task_struct *task = (void *)bpf_get_current_task();
		struct mm_struct *mm = current_mm();
		struct tt_proc fresh = {
			.mode = mm_mode(mm),
			/* Its last switch_mm, after top pruned it. */
			.exited = current_group_dead(),
		};

		if (fresh.mode)
			fresh.tag_bits = mask_tag_bits(mm_untag_mask(mm));
		BPF_CORE_READ_STR_INTO(&fresh.comm, task, group_leader, comm);
		p = lookup_or_init(&procs, key, &fresh, TT_STAT_PROC_FULL);
		if (!p)
			return NULL;
		/* The insert zeroed the other CPUs' copies. */
		proc_state(key, fresh.mode, fresh.tag_bits, fresh.comm);
	}
	return p;
}

#define compiler_barrier()	asm volatile("" ::: "memory")

/*
 * Count one event for the current process (top and tags only): false
 * when it has no row (procs full). mode/tag_bits < 0 leave the recorded
 * state alone (tag_bits is ctrl's alone); tagged adds a tagged fault.
 *
 * The fast path adds to the process's slot on this CPU: a per-CPU array,
 * no hash lookup, no atomic. A slot held by another process with a row
 * sends the event to the row, as does an event that interrupted a
 * count() on this CPU (an NMI: busy), whose adds would race with it;
 * there the adds are atomic, as the interrupted count() may be adding to
 * the same copy of the row.
 */
static __always_inline bool count(__u32 kind, int mode, int tag_bits,
				  bool tagged)
{
	struct tt_proc_key key;
	struct tt_slots *ss;
	struct tt_slot *sl;
	struct tt_proc *p;
	__u32 zero = 0;

	if (!targ_count)
		return false;
	key = current_key();
	ss = bpf_map_lookup_elem(&slots, &zero);
	if (!ss || ss->busy)
		goto row;
	ss->busy = 1;
	compiler_barrier();
	sl = &ss->slot[key.tgid & (TT_SLOTS - 1)];
	if (sl->tgid != key.tgid || sl->start_ns != key.start_ns) {
		struct tt_proc_key owner = {
			.tgid = sl->tgid, .start_ns = sl->start_ns,
		};

		if ((owner.tgid && bpf_map_lookup_elem(&procs, &owner)) ||
		    !key.tgid) {
			compiler_barrier();
			ss->busy = 0;
			goto row;
		}
		p = proc_row(&key);
		if (!p) {
			compiler_barrier();
			ss->busy = 0;
			return false;
		}
		/*
		 * Taken in an order a reader copying the slot (key first)
		 * can follow: a tgid it reads is the slot's process, and
		 * the counts it reads after it are that process's.
		 */
		sl->tgid = 0;
		compiler_barrier();
		__builtin_memset(sl->count, 0, sizeof(sl->count));
		sl->tagged_faults = 0;
		sl->start_ns = key.start_ns;
		sl->mode = p->mode;
		sl->tag_bits = p->tag_bits;
		compiler_barrier();
		sl->tgid = key.tgid;
	}
	sl->count[kind]++;
	if (tagged)
		sl->tagged_faults++;
	/*
	 * A slot's state can be older than the row's (an exec, or a ctrl
	 * on another CPU, wrote the row): ctrl, which changes it, always
	 * writes it; the other events only when their mode tells.
	 */
	if (tag_bits >= 0 || (mode >= 0 && sl->mode != mode)) {
		proc_state(&key, mode, tag_bits, NULL);
		if (mode >= 0)
			sl->mode = mode;
		if (tag_bits >= 0)
			sl->tag_bits = tag_bits;
	}
	compiler_barrier();
	ss->busy = 0;
	return true;
row:
	p = proc_row(&key);
	if (!p)
		return false;
	__sync_fetch_and_add(&p->count[kind], 1);
	if (tagged)
		__sync_fetch_and_add(&p->tagged_faults, 1);
	if (tag_bits >= 0 || (mode >= 0 && p->mode != mode))
		proc_state(&key, mode, tag_bits, NULL);
	return true;
}

/*
 * The tag in addr: the bits of the current mm's tag field (what its untag
 * mask clears, bit 63 aside), shifted down from the field's lowest bit.
 */
static __always_inline __u32 tag_of(__u64 addr)
{
	struct mm_struct *mm = bpf_get_current_task_btf()->mm;
	__u64 mask = ~0ULL, field;

	if (mm && bpf_core_field_exists(mm->context.untag_mask))
		mask = mm->context.untag_mask;
	field = ~mask & ~(1ULL << 63);

	if (!field)
		field = TAG_FIELD_DEFAULT;
	return (addr & field) / (field & -field);
}

/* The system call the current task is in: its registers' orig_ax. */
static __always_inline int current_syscall(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		return TT_NO_SYSCALL;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	return regs->orig_ax;
}

/* A tag value past the dense array: its own entry in wide_tags. */
static __always_inline void wide_tag_add(struct tt_proc_key *proc,
					 __u32 kind, __u64 tag)
{
	static const __u64 zero;
	struct tt_wide_key key = { .proc = *proc, .kind = kind, .tag = tag };
	__u64 *n;

	n = lookup_or_init(&wide_tags, &key, &zero, TT_STAT_WIDE_FULL);
	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * Tag values (tags only): kind TT_EV_UNTAG or TT_EV_FAULT. Like
 * syscalls_add(), only for an event count() gave a process row: the
 * frontend prunes these maps by the rows of procs, so an entry of a
 * process without one (procs full) would never be freed; the event is
 * counted as uncounted (TT_STAT_PROC_FULL) once already.
 */
static __always_inline void tags_add(__u32 kind, __u64 tag)
{
	static const struct tt_tags zero;
	struct tt_proc_key key;
	struct tt_tags *t;

	if (!targ_tags)
		return;
	key = current_key();
	t = lookup_or_init(&tags, &key, &zero, TT_STAT_TAGS_FULL);
	barrier_var(tag);	/* the verifier must see this very check */
	if (!t)
		return;
	if (tag >= TT_TAG_VALUES) {
		wide_tag_add(&key, kind, tag);
		return;
	}
	if (kind == TT_EV_UNTAG)
		__sync_fetch_and_add(&t->untag[tag], 1);
	else
		__sync_fetch_and_add(&t->fault[tag], 1);
}

static __always_inline void syscalls_add(int nr)
{
	static const __u64 zero;
	struct tt_sys_key key = { .nr = nr };
	__u64 *n;

	if (!targ_tags)
		return;
	key.proc = current_key();
	n = lookup_or_init(&syscalls, &key, &zero, TT_STAT_TAGS_FULL);
	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * The tagged pointer behind a fault at address, 0 if none. CR2 holds no
 * tag on LAM (the SDM: the masked address) nor on UAI as emulated here, so
 * the kernel's address == untagged says nothing. The task's registers do:
 * at a user fault, the faulting context; at a fault in a system call, its
 * arguments. A register holding a pointer with tag bits (bit 63 clear)
 * whose untagged value is within FAULT_REG_WINDOW of address is taken as
 * the pointer that faulted. In a system call only its six argument
 * registers count: the others hold whatever user space left in them,
 * such as the tagged pointers HWASan keeps in callee-saved registers.
 */
static __always_inline bool tagged_near(__u64 v, __u64 mask, __u64 address)
{
	__u64 u = v & mask;

	if ((__s64)v < 0 || u == v)
		return false;
	return u - address + FAULT_REG_WINDOW < 2 * FAULT_REG_WINDOW;
}

static __always_inline __u64 fault_pointer(__u64 address, __u64 untagged,
					   __u64 error_code)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 mask = mm_untag_mask(current_mm());
	struct pt_regs regs;
	__u64 *r = (__u64 *)&regs;
	int i;

	if (address != untagged)
		return address;
	if (mask == ~0ULL)
		return 0;
	if (bpf_probe_read_kernel(&regs, sizeof(regs),
				  (void *)bpf_task_pt_regs(task)))
		return 0;
	if (!(error_code & X86_PF_USER)) {
		__u64 args[] = { regs.di, regs.si, regs.dx, regs.r10, regs.r8,
				 regs.r9 };

#pragma unroll
		for (i = 0; i < ARRAY_SIZE(args); i++)
			if (tagged_near(args[i], mask, address))
				return args[i];
		return 0;
	}
#pragma unroll
	for (i = 0; i < sizeof(regs) / sizeof(__u64); i++)
		if (tagged_near(r[i], mask, address))
			return r[i];
	return 0;
}

/*
 * A wake-up per record costs the consumer a context switch per record.
 * A record wakes it when the buffer held nothing else (the consumer has
 * read everything, so sleeps or soon will) and no wake-up came in the
 * last targ_wakeup_ns, or when it brings the unread data to
 * targ_wakeup_bytes; the others go in without one, and the consumer
 * polls on a timer for what a burst leaves below that (trace.c).
 *
 * Decided after the record is reserved, so that the unread data counts
 * it and every record reserved before it. Several CPUs can still pass
 * the mark together, each seeing another's record already past it, and
 * none "bringing" it there: so while the unread data is past the mark,
 * the record that claims each further targ_wakeup_bytes of queued_bytes
 * wakes the consumer too. Each claim is an atomic add, so exactly one
 * record owns each multiple: a sleeping consumer is woken within two
 * marks of unread data whatever the CPUs do, and an awake one at most
 * once a mark.
 */
__u64 last_wakeup_ns;
__u64 queued_bytes;

/* A record's room in the ring buffer: header and data, 8-byte aligned. */
#define ROOM(size)	((BPF_RINGBUF_HDR_SZ + (__u64)(size) + 7) & ~7ULL)
#define RECORD_BYTES	ROOM(sizeof(struct tt_record))

/*
 * bytes: the record's room; queued: it is reserved already. A located
 * record (a tagged fault or #GP with its frames: rare, and of a size the
 * verifier does not know) is copied in by bpf_ringbuf_output() after
 * this, and counted as if it were in.
 */
static __always_inline __u64 wakeup_flags(__u64 now, __u64 bytes,
					  bool queued)
{
	__u64 avail, end;

	if (!targ_wakeup_bytes)
		return 0;
	end = __sync_fetch_and_add(&queued_bytes, bytes) + bytes;
	avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	if (!queued)
		avail += bytes;
	if ((avail <= bytes && now - last_wakeup_ns >= targ_wakeup_ns) ||
	    (avail >= targ_wakeup_bytes &&
	     (avail - bytes < targ_wakeup_bytes ||
	      end % targ_wakeup_bytes < bytes))) {
		last_wakeup_ns = now;
		return BPF_RB_FORCE_WAKEUP;
	}
	return BPF_RB_NO_WAKEUP;
}

/*
 * Stream r (its event fields filled) when the frontend wants this kind:
 * the common fields are added here. A full ring buffer is counted.
 */
static __always_inline void emit_size(struct tt_record *r, __u32 kind,
				      __u32 size)
{
	struct tt_record *slot;
	__u64 id;

	if (!(targ_stream & (1U << kind)))
		return;
	id = bpf_get_current_pid_tgid();
	r->ts_ns = bpf_ktime_get_ns();
	r->cpu = bpf_get_smp_processor_id();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->kind = kind;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	if (size > sizeof(*r)) {
		if (!bpf_ringbuf_output(&events, r, size,
					wakeup_flags(r->ts_ns, ROOM(size),
						     false)))
			return;
		goto dropped;
	}
	slot = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!slot)
		goto dropped;
	*slot = *r;
	bpf_ringbuf_submit(slot, wakeup_flags(r->ts_ns, RECORD_BYTES, true));
	return;
dropped:
	stat_inc(TT_STAT_DROPS);
	stat_inc(TT_STAT_DROPS_KIND + kind);
}

static __always_inline void emit(struct tt_record *r, __u32 kind)
{
	emit_size(r, kind, sizeof(*r));
}

/* The kernel's "%pS" of an untag call site into syms, once a site. */
static __always_inline void name_caller(__u64 caller)
{
	__u32 zero = 0;
	__u64 *last = bpf_map_lookup_elem(&last_caller, &zero);
	struct tt_sym sym = {};	/* no stack bytes past the name into the map */

	if (last && *last == caller)
		return;
	if (last)
		*last = caller;
	if (bpf_map_lookup_elem(&syms, &caller))
		return;
	BPF_SNPRINTF(sym.name, sizeof(sym.name), "%pS", caller);
	bpf_map_update_elem(&syms, &caller, &sym, BPF_NOEXIST);
}

/* The walk from a file up to the root, one bpf_loop() step at a time. */
struct path_walk {
	struct dentry *d;
	struct mount *mnt;
	struct tt_path *p;
	__u32 n;
	bool cut;
};

/*
 * One step: up to the parent, naming d; or, at the root of d's mount, to
 * the dentry it is mounted on. 1 ends the walk: the root of the mount
 * tree reached (complete), or TT_PATH_DEPTH names taken (cut).
 */
static long path_step(__u32 i, void *data)
{
	struct path_walk *pw = data;
	struct dentry *d = pw->d, *parent;
	struct mount *mnt = pw->mnt, *up;
	__u32 n = pw->n;

	if (d == BPF_CORE_READ(mnt, mnt.mnt_root)) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt) {
			pw->p->complete = !pw->cut;
			return 1;
		}
		pw->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		pw->mnt = up;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (parent == d) {		/* a root not mounted here */
		pw->p->complete = !pw->cut;
		return 1;
	}
	if (n >= TT_PATH_DEPTH)
		return 1;
	if (BPF_CORE_READ(d, d_name.len) >= TT_NAME_LEN)
		pw->cut = true;
	bpf_probe_read_kernel_str(pw->p->name[n], TT_NAME_LEN,
				  BPF_CORE_READ(d, d_name.name));
	pw->n = n + 1;
	pw->p->depth = n + 1;
	pw->d = parent;
	return 0;
}

/*
 * The path of file into the files map under key, once: its names from the
 * file up, crossing each mount to the one it is mounted on, as d_path()
 * walks, to the root of the mount tree.
 */
static __always_inline void file_path(struct file *file,
				      const struct tt_file_key *key)
{
	struct path_walk pw = {};
	struct located *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&located_buf, &zero);
	if (!w)
		return;
	pw.p = &w->path;
	pw.p->depth = 0;
	pw.p->complete = 0;
	pw.d = BPF_CORE_READ(file, f_path.dentry);
	/* The vfsmount is struct mount's member mnt. */
	pw.mnt = (void *)BPF_CORE_READ(file, f_path.mnt) -
		 bpf_core_field_offset(struct mount, mnt);
	/* Each mount crossed takes a step too. */
	bpf_loop(2 * TT_PATH_DEPTH, path_step, &pw, 0);
	bpf_map_update_elem(&files, key, pw.p, BPF_NOEXIST);
}

/* bpf_find_vma()'s callback: the file and offset of the frame's ip. */
static long frame_vma(struct task_struct *task, struct vm_area_struct *vma,
		      void *data)
{
	struct tt_frame *f = data;
	struct file *file = BPF_CORE_READ(vma, vm_file);
	struct inode *inode;

	if (!file)
		return 0;
	inode = BPF_CORE_READ(file, f_inode);
	f->file.ino = BPF_CORE_READ(inode, i_ino);
	f->file.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	f->file_off = f->ip - BPF_CORE_READ(vma, vm_start) +
		      (BPF_CORE_READ(vma, vm_pgoff) << 12);
	if (!bpf_map_lookup_elem(&files, &f->file))
		file_path(file, &f->file);
	return 0;
}

/* f (zeroed, on the stack): where ip is, for the frame that has it. */
static __always_inline void locate(struct task_struct *task,
				   struct tt_frame *f, __u64 ip)
{
	long err;

	f->ip = ip;
	if ((__s64)ip <= 0)
		return;
	/*
	 * -EBUSY: the mm's lock is taken once per interrupts-off section on
	 * a CPU (its unlock waits in an irq_work), as at a page fault: a
	 * second lookup there, ours or another BPF program's, fails.
	 */
	err = bpf_find_vma(task, ip, frame_vma, f, 0);
	if (err == -EBUSY)
		f->file.pad = EBUSY;
}

/* tags: one more tagged fault or #GP of this process where f0 is. */
static __always_inline void locs_add(__u32 kind, const struct tt_frame *f0)
{
	static const __u64 zero;
	struct tt_loc_key key = {
		.proc = current_key(),
		.file = f0->file,	/* pad: EBUSY when not placed */
		.off = f0->file.ino ? f0->file_off : f0->ip,
		.kind = kind,
	};
	__u64 *n;

	n = lookup_or_init(&locs, &key, &zero, TT_STAT_LOCS_FULL);
	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * A tagged fault or a #GP: counted by where in tags' locs, and streamed
 * with where it happened: f0 (ip: user, or the kernel's for a kernel #SS)
 * and, with --stack, the user return addresses the frame pointers lead
 * to. w->r has the event's fields.
 */
static __always_inline void emit_located(void *ctx, struct located *w,
					 __u32 kind, __u64 ip, bool counted)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 n = 1, nu = 0, skip = 0, i, k;
	struct tt_frame f0 = {};
	long len;

	if (!targ_tags && !(targ_stream & (1U << kind)))
		return;
	locate(task, &f0, ip);
	/* As the tag maps: no place for a process without a counter row. */
	if (targ_tags && counted)
		locs_add(kind, &f0);
	if (!(targ_stream & (1U << kind)))
		return;
	w->f[0] = f0;
	if (targ_frames > 1) {
		len = bpf_get_stack(ctx, &w->ips[1], sizeof(w->ips) - 8,
				    BPF_F_USER_STACK);
		if (len > 0)
			nu = (__u32)len / 8;	/* in ips[1..nu] */
	}
	/* The user stack starts at the user IP: ip itself, unless kernel. */
	if (nu && w->ips[1] == ip)
		skip = 1;
	for (i = 1; i < TT_STACK_MAX; i++) {
		/* The callback's context must be on the stack. */
		struct tt_frame f = {};

		k = i + skip;
		if (k > nu || k >= TT_STACK_MAX || i >= targ_frames)
			break;
		locate(task, &f, w->ips[k]);
		w->f[i] = f;
		n = i + 1;
	}
	emit_size(&w->r, kind, sizeof(w->r) + n * sizeof(w->f[0]));
}

/* The per-event handlers: filter, count, stream. */
static __always_inline int handle_ctrl(int interface, int op, int req_bits,
				       int granted_bits, int offset, int mode,
				       __u64 untag_mask, long ret, int reason)
{
	struct tt_record r = {
		.ctrl = { interface, op, req_bits, granted_bits, offset, mode,
			  reason, 0, untag_mask, ret },
	};

	if (is_check(TT_STAT_CHECK_CTRL))
		return 0;
	if (!wanted())
		return 0;
	count(TT_EV_CTRL, mode, granted_bits, false);
	emit(&r, TT_EV_CTRL);
	return 0;
}

static __always_inline int handle_untag(__u64 tagged, __u64 untagged,
					__u64 caller, int mode)
{
	struct tt_record r = {
		.untag = { tagged, untagged, caller, mode },
	};
	bool p;

	if (tagged == untagged || !wanted())
		return 0;
	p = count(TT_EV_UNTAG, mode, -1, false);
	/* The tag and the system call cost top nothing: only read for these. */
	if (!targ_tags && !(targ_stream & (1U << TT_EV_UNTAG)))
		return 0;
	r.untag.syscall = current_syscall();
	r.untag.tag = tag_of(tagged);
	if (p) {
		tags_add(TT_EV_UNTAG, r.untag.tag);
		syscalls_add(r.untag.syscall);
	}
	if (targ_stream & (1U << TT_EV_UNTAG))
		name_caller(caller);
	emit(&r, TT_EV_UNTAG);
	return 0;
}

/*
 * A mode switch counts for the task switched away from: that is current
 * in switch_mm_irqs_off() (and the enabling task in the enable IPI).
 */
static __always_inline int handle_switch(__u64 prev_mm, __u64 next_mm,
					 int prev_pid, int next_pid,
					 int prev_mode, int next_mode,
					 __u64 cr3_lam, bool efer_written)
{
	struct tt_record r = {
		.sw = { prev_mm, next_mm, prev_pid, next_pid, prev_mode,
			next_mode, cr3_lam, efer_written },
	};

	if (!wanted())
		return 0;
	count(TT_EV_SWITCH, -1, -1, false);
	emit(&r, TT_EV_SWITCH);
	return 0;
}

/*
 * A fault. The kernel's event names the pointer the faulting instruction
 * used where it has the field (has_pointer; pointer 0: not known), and
 * the register heuristic guesses it on kernels without.
 */
static __always_inline int handle_fault(void *ctx, __u64 address,
					__u64 untagged, __u64 error_code,
					__u64 ip, int mode, __u64 pointer,
					bool has_pointer)
{
	struct tt_record r = {
		.fault = { address, untagged, error_code, ip, mode },
	};
	struct located *w;
	__u32 zero = 0;
	bool p;

	if (!wanted())
		return 0;
	if (!has_pointer)
		pointer = fault_pointer(address, untagged, error_code);
	else if (address != untagged)
		pointer = address;	/* CR2 kept the tag */
	if (pointer && tag_of(pointer)) {
		r.fault.tagged = pointer;
		r.fault.tag = tag_of(pointer);
	}
	p = count(TT_EV_FAULT, mode, -1, r.fault.tag != 0);
	if (p)
		tags_add(TT_EV_FAULT, r.fault.tag);
	/* Where, for a tagged one: a fault at a tag-free pointer is paging. */
	w = r.fault.tag ? bpf_map_lookup_elem(&located_buf, &zero) : NULL;
	if (w) {
		w->r = r;
		emit_located(ctx, w, TT_EV_FAULT, ip, p);
	} else {
		emit(&r, TT_EV_FAULT);
	}
	return 0;
}

static __always_inline int handle_gp(void *ctx, __u64 ip, __u64 address,
				     int mode, int trap)
{
	struct tt_record r = {
		.gp = { ip, address, mode, trap },
	};
	struct located *w;
	__u32 zero = 0;
	bool p;

	if (is_check(TT_STAT_CHECK_GP))
		return 0;
	if (!wanted())
		return 0;
	p = count(TT_EV_GP, mode, -1, false);
	w = bpf_map_lookup_elem(&located_buf, &zero);
	if (w) {
		w->r = r;
		emit_located(ctx, w, TT_EV_GP, ip, p);
	} else {
		emit(&r, TT_EV_GP);
	}
	return 0;
}

/*
 * The tagged_addr tracepoints: each as tp_btf and as raw_tp. Both see the
 * tracepoint's arguments as an array of u64, so one body serves both.
 */
#define TAGGED_ADDR_TP(event, body, ...)				\
SEC("tp_btf/tagged_addr_" #event)					\
int BPF_PROG(event##_btf, __VA_ARGS__) { return body; }		\
SEC("raw_tp/tagged_addr_" #event)					\
int BPF_PROG(event##_raw, __VA_ARGS__) { return body; }

TAGGED_ADDR_TP(ctrl,
	       handle_ctrl(interface, op, req_bits, granted_bits, offset, mode,
			   untag_mask, ret, reason),
	       int interface, int op, int req_bits, int granted_bits,
	       int offset, int mode, __u64 untag_mask, long ret, int reason)

/*
 * The ctrl event without reason (the series meant for mainline): reading
 * a ninth argument there is refused, by the verifier or at attach.
 */
SEC("tp_btf/tagged_addr_ctrl")
int BPF_PROG(ctrl_noreason_btf, int interface, int op, int req_bits,
	     int granted_bits, int offset, int mode, __u64 untag_mask, long ret)
{
	return handle_ctrl(interface, op, req_bits, granted_bits, offset, mode,
			   untag_mask, ret, TT_REASON_UNKNOWN);
}

SEC("raw_tp/tagged_addr_ctrl")
int BPF_PROG(ctrl_noreason_raw, int interface, int op, int req_bits,
	     int granted_bits, int offset, int mode, __u64 untag_mask, long ret)
{
	return handle_ctrl(interface, op, req_bits, granted_bits, offset, mode,
			   untag_mask, ret, TT_REASON_UNKNOWN);
}

TAGGED_ADDR_TP(untag, handle_untag(tagged, untagged, caller, mode),
	       unsigned long tagged, unsigned long untagged,
	       unsigned long caller, int mode)

TAGGED_ADDR_TP(mode_switch,
	       handle_switch(prev_mm, next_mm, prev_pid, next_pid, prev_mode,
			     next_mode, cr3_lam, efer_written),
	       __u64 prev_mm, __u64 next_mm, int prev_pid, int next_pid,
	       int prev_mode, int next_mode, unsigned long cr3_lam,
	       bool efer_written)

/* The fault event before it had pointer: the register heuristic. */
TAGGED_ADDR_TP(fault,
	       handle_fault(ctx, address, untagged, error_code, ip, mode, 0,
			    false),
	       unsigned long address, unsigned long untagged,
	       unsigned long error_code, unsigned long ip, int mode)

/* With pointer: the operand the kernel decoded from the instruction. */
SEC("tp_btf/tagged_addr_fault")
int BPF_PROG(fault_ptr_btf, unsigned long address, unsigned long untagged,
	     unsigned long error_code, unsigned long ip, int mode,
	     unsigned long pointer)
{
	return handle_fault(ctx, address, untagged, error_code, ip, mode,
			    pointer, true);
}

SEC("raw_tp/tagged_addr_fault")
int BPF_PROG(fault_ptr_raw, unsigned long address, unsigned long untagged,
	     unsigned long error_code, unsigned long ip, int mode,
	     unsigned long pointer)
{
	return handle_fault(ctx, address, untagged, error_code, ip, mode,
			    pointer, true);
}

TAGGED_ADDR_TP(gp, handle_gp(ctx, ip, address, mode, trapnr),
	       unsigned long ip, unsigned long address, int mode, int trapnr)

/*
 * Fallback for enables: do_arch_prctl_64()'s return, for the tagging
 * options. The mode and mask are the process's state after the call. A
 * debugger's PTRACE_ARCH_PRCTL runs it with the tracee as task: not the
 * debugger's own call, so not reported, as the tracepoint does not.
 */
static __always_inline int prctl_done(int option, __u64 arg2, long ret)
{
	struct mm_struct *mm;
	int op, req_bits = -1, mode;
	__u64 mask;

	switch (option) {
	case ARCH_ENABLE_TAGGED_ADDR:
		op = TT_OP_ENABLE;
		req_bits = arg2 > 0x7fffffff ? 0x7fffffff : arg2;
		break;
	case ARCH_GET_UNTAG_MASK:
	case ARCH_GET_MAX_TAG_BITS:
		op = TT_OP_QUERY;
		break;
	default:
		return 0;
	}
	mm = current_mm();
	mode = mm_mode(mm);
	mask = mm_untag_mask(mm);
	return handle_ctrl(TT_IF_ARCH_PRCTL, op, req_bits,
			   mode ? mask_tag_bits(mask) : 0,
			   mode ? tt_tag_offset(mask) : 0,
			   mode, mask, ret, TT_REASON_UNKNOWN);
}

SEC("fexit/do_arch_prctl_64")
int BPF_PROG(arch_prctl_fexit, struct task_struct *task, int option,
	     unsigned long arg2, long ret)
{
	if ((void *)task != (void *)bpf_get_current_task())
		return 0;
	return prctl_done(option, arg2, ret);
}

SEC("kprobe/do_arch_prctl_64")
int BPF_KPROBE(arch_prctl_kprobe, struct task_struct *task, int option,
	       unsigned long arg2)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct prctl_args a = { .option = option, .arg2 = arg2 };

	if ((void *)task != (void *)bpf_get_current_task())
		return 0;
	bpf_map_update_elem(&prctl_args, &tid, &a, BPF_ANY);
	return 0;
}

SEC("kretprobe/do_arch_prctl_64")
int BPF_KRETPROBE(arch_prctl_kretprobe, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct prctl_args *a = bpf_map_lookup_elem(&prctl_args, &tid);
	struct prctl_args copy;

	if (!a)
		return 0;
	copy = *a;
	bpf_map_delete_elem(&prctl_args, &tid);
	return prctl_done(copy.option, copy.arg2, ret);
}

/*
 * switch_mm_irqs_off(prev, next, tsk): the time spent in it, by mode
 * transition, and on kernels without the mode_switch event, the switch
 * itself. The outgoing mm is what the CPU had loaded: the *_tlb programs
 * read cpu_tlbstate.loaded_mm, a per-CPU variable the verifier finds only
 * with CONFIG_KALLSYMS_ALL. The others take the next mm of this CPU's last
 * switch they saw, which is loaded_mm; before the first, the prev argument,
 * or current's active_mm when a caller passes none (leave_mm(), text poking).
 * Entry saves next and tsk: a kretprobe has no arguments.
 *
 * The *_tlb programs cannot be folded into the others behind a const
 * volatile switch: the verifier resolves every ld_imm64 of a kernel
 * variable (kallsyms_lookup_name(), in resolve_pseudo_ldimm64()) before
 * it walks the program and learns which code is dead, so on a kernel whose
 * BTF has cpu_tlbstate and whose kallsyms does not (KALLSYMS_ALL=n, as the
 * upstream test kernel) one program holding the load is refused whichever
 * way the switch is set. libbpf fills the load in from the BTF whenever the
 * variable is there, used or not.
 */
static __always_inline struct sw_start *sw_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sw_starts, &zero);
}

static __always_inline void switch_enter(struct sw_start *s,
					 struct mm_struct *prev,
					 struct mm_struct *next,
					 struct task_struct *tsk)
{
	s->prev = prev;
	s->next = next;
	s->tsk = tsk;
	s->ts = bpf_ktime_get_ns();
}

static __always_inline struct mm_struct *switch_prev(struct sw_start *s,
						     struct mm_struct *prev)
{
	struct task_struct *task;

	if (s->loaded)
		return s->loaded;
	if (prev)
		return prev;
	task = (void *)bpf_get_current_task();
	return BPF_CORE_READ(task, active_mm);
}

static __always_inline struct mm_struct *tlb_loaded_mm(void)
{
	struct tlb_state *ts = bpf_this_cpu_ptr(&cpu_tlbstate);

	return BPF_CORE_READ(ts, loaded_mm);
}

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 slot = 0;

#pragma unroll
	for (int shift = 32; shift; shift >>= 1) {
		if (v >= (1ULL << shift)) {
			v >>= shift;
			slot += shift;
		}
	}
	return slot < TT_HIST_SLOTS ? slot : TT_HIST_SLOTS - 1;
}

/* This CPU's histogram of the transition: plain adds, interrupts are off. */
static __always_inline void hist_add(struct tt_hist_key *key, __u64 dt)
{
	__u32 i = tt_hist_index(key->prev_mode, key->next_mode, key->same_mm);
	struct tt_hist *h = NULL;

	if (key->prev_mode < TT_MODE_MAX && key->next_mode < TT_MODE_MAX)
		h = bpf_map_lookup_elem(&hists, &i);
	if (!h) {
		stat_inc(TT_STAT_HIST_FULL);
		return;
	}
	h->slots[log2_slot(dt)]++;
	h->sum += dt;
}

static __always_inline void switch_exit(void)
{
	struct sw_start *s = sw_state();
	struct tt_hist_key key = {};
	struct mm_struct *prev, *next;
	struct task_struct *tsk;
	__u64 now = bpf_ktime_get_ns();

	if (!s || !s->ts)
		return;
	prev = s->prev;
	next = s->next;
	tsk = s->tsk;
	s->loaded = next;
	key.prev_mode = mm_mode(prev);
	key.next_mode = mm_mode(next);
	key.same_mm = prev == next;
	/* -p/-c select the task switching away, as for switch events. */
	if (targ_hist && wanted())
		hist_add(&key, targ_usec ? (now - s->ts) / 1000 : now - s->ts);
	s->ts = 0;
	if (targ_switch_events && key.prev_mode != key.next_mode) {
		__u32 pid = (__u32)bpf_get_current_pid_tgid();
		__u64 lam = 0;

		if (bpf_core_field_exists(next->context.lam_cr3_mask))
			lam = BPF_CORE_READ(next, context.lam_cr3_mask);
		handle_switch(prev ? BPF_CORE_READ(prev, context.ctx_id) : 0,
			      BPF_CORE_READ(next, context.ctx_id), pid,
			      tsk ? BPF_CORE_READ(tsk, pid) : pid,
			      key.prev_mode, key.next_mode, lam, false);
	}
}

SEC("fentry/switch_mm_irqs_off")
int BPF_PROG(switch_mm_fentry, struct mm_struct *prev, struct mm_struct *next,
	     struct task_struct *tsk)
{
	struct sw_start *s = sw_state();

	if (s)
		switch_enter(s, switch_prev(s, prev), next, tsk);
	return 0;
}

SEC("fentry/switch_mm_irqs_off")
int BPF_PROG(switch_mm_fentry_tlb, struct mm_struct *prev,
	     struct mm_struct *next, struct task_struct *tsk)
{
	struct sw_start *s = sw_state();

	if (s)
		switch_enter(s, tlb_loaded_mm(), next, tsk);
	return 0;
}

SEC("fexit/switch_mm_irqs_off")
int BPF_PROG(switch_mm_fexit)
{
	switch_exit();
	return 0;
}

SEC("kprobe/switch_mm_irqs_off")
int BPF_KPROBE(switch_mm_kprobe, struct mm_struct *prev,
	       struct mm_struct *next, struct task_struct *tsk)
{
	struct sw_start *s = sw_state();

	if (s)
		switch_enter(s, switch_prev(s, prev), next, tsk);
	return 0;
}

SEC("kprobe/switch_mm_irqs_off")
int BPF_KPROBE(switch_mm_kprobe_tlb, struct mm_struct *prev,
	       struct mm_struct *next, struct task_struct *tsk)
{
	struct sw_start *s = sw_state();

	if (s)
		switch_enter(s, tlb_loaded_mm(), next, tsk);
	return 0;
}

SEC("kretprobe/switch_mm_irqs_off")
int BPF_KRETPROBE(switch_mm_kretprobe)
{
	switch_exit();
	return 0;
}

/*
 * Process lifetimes, for top's counters: at exec the process takes its new
 * name (the exec reset event comes before the kernel renames it) and the
 * new mm's mode; when its last thread exits it is marked so, and top drops
 * it after reporting it.
 */
static __always_inline int proc_exec(void)
{
	struct tt_proc_key key = current_key();
	struct tt_proc *p = bpf_map_lookup_elem(&procs, &key);
	char comm[TT_COMM_LEN];
	struct mm_struct *mm;
	int mode;

	if (!p)
		return 0;
	mm = current_mm();
	bpf_get_current_comm(comm, sizeof(comm));
	mode = mm_mode(mm);
	proc_state(&key, mode, mode ? mask_tag_bits(mm_untag_mask(mm)) : 0,
		   comm);
	return 0;
}

static __always_inline int proc_exit(void)
{
	struct tt_proc_key key;
	struct tt_proc *p;

	if (!current_group_dead())
		return 0;
	key = current_key();
	p = bpf_map_lookup_elem(&procs, &key);
	if (p)
		p->exited = 1;
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec_btf)
{
	return proc_exec();
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(proc_exec_raw)
{
	return proc_exec();
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit_btf)
{
	return proc_exit();
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(proc_exit_raw)
{
	return proc_exit();
}

/*
 * Fallback for faults: exceptions:page_fault_user, kept when the address
 * carries a tag (bit 63 clear, bits 62:57 not all zero) or the process has
 * tagging on, as the kernel's own event does.
 */
static __always_inline int pf_user(void *ctx, __u64 address,
				   struct pt_regs *regs, __u64 error_code)
{
	struct mm_struct *mm = current_mm();
	int mode = mm_mode(mm);

	if ((__s64)address < 0)
		return 0;
	if (mode == TT_MODE_NONE && !(address >> 57))
		return 0;
	return handle_fault(ctx, address, address & mm_untag_mask(mm),
			    error_code, BPF_CORE_READ(regs, ip), mode, 0, false);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(page_fault_btf, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return pf_user(ctx, address, regs, error_code);
}

SEC("raw_tp/page_fault_user")
int BPF_PROG(page_fault_raw, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return pf_user(ctx, address, regs, error_code);
}
