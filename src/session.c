// SPDX-License-Identifier: GPL-2.0
/*
 * The loaded BPF side. Every program starts with autoload off; each source
 * the kernel offers switches on one flavour (tp_btf or raw_tp, fentry or
 * kprobe), as libbpf-tools' runqlat does, so one object serves the patched
 * and the upstream kernel alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "btfshare.h"
#include "clock.h"
#include "mapwalk.h"
#include "names.h"
#include "procset.h"
#include "session.h"
#include "usym.h"
#include "table.h"
#include "tagfmt.h"
#include "tagtrace.skel.h"

/* The initial PID namespace's inode number (include/linux/proc_ns.h). */
#define PROC_PID_INIT_INO	0xeffffffcU

/*
 * hist, and top --histograms, time switch_mm: a probe on every context
 * switch of the system, so top does it only when asked.
 */
static bool wants_hist(const struct tt_env *env)
{
	return env->cmd == TT_CMD_HIST ||
	       (env->cmd == TT_CMD_TOP && env->histograms);
}

/*
 * Where each wanted event kind comes from on this kernel. The fentry
 * question costs a parse of the kernel's BTF: asked only if needed.
 */
static void choose_sources(struct tt_session *s, const struct tt_env *env,
			   struct tt_probe *p, __u32 wanted)
{
	bool raw = env->attach == TT_ATTACH_RAW;
	bool btf_only = env->attach == TT_ATTACH_BTF;
	bool need_fentry = false, fentry;
	int k;

	for (k = 0; k < TT_EV_MAX; k++) {
		s->src[k] = TT_SRC_NONE;
		if (!(wanted & (1U << k)))
			continue;
		if (env->attach != TT_ATTACH_FALLBACK) {
			/* tp_btf where BTF types the event, else its raw_tp twin. */
			if (p->tp[k] && !raw) {
				s->src[k] = TT_SRC_TP_BTF;
				continue;
			}
			tt_probe_syms(p);
			if (p->raw_tp[k] && !btf_only) {
				s->src[k] = TT_SRC_RAW_TP;
				continue;
			}
		}
		switch (k) {
		case TT_EV_CTRL:
			if (p->arch_prctl_fn)
				s->src[k] = TT_SRC_FEXIT;
			break;
		case TT_EV_SWITCH:
			if (p->switch_mm_fn)
				s->src[k] = TT_SRC_FENTRY;
			break;
		case TT_EV_FAULT:
			tt_probe_syms(p);
			if (p->page_fault_tp && !raw)
				s->src[k] = TT_SRC_PF_BTF;
			else if (p->page_fault_raw && !btf_only)
				s->src[k] = TT_SRC_PF_RAW;
			break;
		}
		need_fentry |= s->src[k] == TT_SRC_FEXIT ||
			       s->src[k] == TT_SRC_FENTRY;
	}
	s->hist_src = TT_SRC_NONE;
	if (wants_hist(env) && p->switch_mm_fn) {
		s->hist_src = TT_SRC_FENTRY;
		need_fentry = true;
	}
	if (!need_fentry)
		return;
	fentry = !raw && tt_probe_fentry(p, "switch_mm_irqs_off");
	if (fentry)
		return;
	/* kprobes instead, unless -A btf asked for BTF programs only. */
	for (k = 0; k < TT_EV_MAX; k++) {
		if (s->src[k] == TT_SRC_FEXIT)
			s->src[k] = btf_only ? TT_SRC_NONE : TT_SRC_KRETPROBE;
		else if (s->src[k] == TT_SRC_FENTRY)
			s->src[k] = btf_only ? TT_SRC_NONE : TT_SRC_KPROBE;
	}
	if (s->hist_src == TT_SRC_FENTRY)
		s->hist_src = btf_only ? TT_SRC_NONE : TT_SRC_KPROBE;
}

/* Whether any of the @wanted events has a source (none wanted: true). */
static bool any_source(const struct tt_session *s, __u32 wanted)
{
	int k;

	for (k = 0; k < TT_EV_MAX; k++)
		if ((wanted & (1U << k)) && s->src[k] != TT_SRC_NONE)
			return true;
	return !wanted;
}

static bool times_switches(const struct tt_session *s)
{
	return s->src[TT_EV_SWITCH] == TT_SRC_FENTRY ||
	       s->src[TT_EV_SWITCH] == TT_SRC_KPROBE ||
	       s->hist_src != TT_SRC_NONE;
}

static void enable(struct bpf_program *prog)
{
	bpf_program__set_autoload(prog, true);
}

/*
 * The program for tagged_addr event @k, tp_btf or raw_tp (@raw), in the
 * form for the event's arguments on this kernel: the fault event with or
 * without pointer, the ctrl event with or without reason.
 */
static struct bpf_program *tp_prog(const struct tt_session *s, int k, bool raw)
{
	struct tagtrace_bpf *o = s->skel;
	struct bpf_program *btf[TT_EV_MAX] = {
		o->progs.ctrl_btf, o->progs.untag_btf, o->progs.mode_switch_btf,
		o->progs.fault_btf, o->progs.gp_btf,
	};
	struct bpf_program *raws[TT_EV_MAX] = {
		o->progs.ctrl_raw, o->progs.untag_raw, o->progs.mode_switch_raw,
		o->progs.fault_raw, o->progs.gp_raw,
	};

	if (k == TT_EV_FAULT && s->fault_pointer)
		return raw ? o->progs.fault_ptr_raw : o->progs.fault_ptr_btf;
	if (k == TT_EV_CTRL && !s->ctrl_reason)
		return raw ? o->progs.ctrl_noreason_raw : o->progs.ctrl_noreason_btf;
	return raw ? raws[k] : btf[k];
}

static void enable_sources(struct tt_session *s, bool raw_tp)
{
	struct tagtrace_bpf *o = s->skel;
	struct bpf_program *prog;
	int k;

	bpf_object__for_each_program(prog, o->obj)
		bpf_program__set_autoload(prog, false);

	for (k = 0; k < TT_EV_MAX; k++) {
		switch (s->src[k]) {
		case TT_SRC_TP_BTF:
		case TT_SRC_RAW_TP:
			enable(tp_prog(s, k, s->src[k] == TT_SRC_RAW_TP));
			break;
		case TT_SRC_FEXIT:
			enable(o->progs.arch_prctl_fexit);
			break;
		case TT_SRC_KRETPROBE:
			enable(o->progs.arch_prctl_kprobe);
			enable(o->progs.arch_prctl_kretprobe);
			break;
		case TT_SRC_PF_BTF:
			enable(o->progs.page_fault_btf);
			break;
		case TT_SRC_PF_RAW:
			enable(o->progs.page_fault_raw);
			break;
		default:
			break;
		}
	}
	if (s->src[TT_EV_SWITCH] == TT_SRC_FENTRY ||
	    s->hist_src == TT_SRC_FENTRY) {
		enable(s->tlbstate ? o->progs.switch_mm_fentry_tlb :
				     o->progs.switch_mm_fentry);
		enable(o->progs.switch_mm_fexit);
	}
	if (s->src[TT_EV_SWITCH] == TT_SRC_KPROBE ||
	    s->hist_src == TT_SRC_KPROBE) {
		enable(s->tlbstate ? o->progs.switch_mm_kprobe_tlb :
				     o->progs.switch_mm_kprobe);
		enable(o->progs.switch_mm_kretprobe);
	}
	if (s->counts) {
		enable(raw_tp ? o->progs.proc_exec_raw : o->progs.proc_exec_btf);
		enable(raw_tp ? o->progs.proc_exit_raw : o->progs.proc_exit_btf);
	}
}

/* tags, and top exporting tag values, keep the tags and syscalls maps. */
static bool wants_tags(const struct tt_env *env)
{
	return env->cmd == TT_CMD_TAGS ||
	       (env->cmd == TT_CMD_TOP && env->tag_values);
}

static __u32 wanted_events(const struct tt_env *env)
{
	switch (env->cmd) {
	case TT_CMD_TRACE:
		return env->events;
	case TT_CMD_TOP:
		return TT_ALL_EVENTS;
	case TT_CMD_TAGS:
		return TT_TAGS_EVENTS;
	default:
		return 0;
	}
}

static int session_open(struct tt_session *s, const struct tt_env *env,
			bool no_tlbstate);

/* The kernel refused the programs at @step: say so, and allow a retry. */
static int bpf_failed(struct tt_session *s, const struct tt_env *env,
		      const char *step, int ret)
{
	s->load_failed = true;
	fprintf(stderr, "tagtrace: cannot %s the BPF programs: %s%s\n",
		step, strerror(-ret),
		env->verbose ? "" : " (-v shows libbpf's log)");
	return ret;
}

/*
 * A refused load is retried without the typed __ksym cpu_tlbstate if it
 * was used (the probe found it in the BTF it read, and libbpf resolves it
 * in the kernel's own, which may differ), then, with -A auto, with the
 * raw_tp and kprobe twins of the BTF-typed programs (tp_btf, fentry),
 * still without it.
 */
int tt_session_open(struct tt_session *s, const struct tt_env *env)
{
	struct tt_env raw;
	int ret = session_open(s, env, false);

	if (!ret || !s->load_failed)
		return ret;
	if (s->tlbstate) {
		tt_session_close(s);
		fputs("tagtrace: retrying without cpu_tlbstate (outgoing mm from the last switch seen)\n",
		      stderr);
		ret = session_open(s, env, true);
		if (!ret || !s->load_failed)
			return ret;
	}
	if (env->attach != TT_ATTACH_AUTO)
		return ret;
	tt_session_close(s);
	raw = *env;
	raw.attach = TT_ATTACH_RAW;
	fputs("tagtrace: retrying with raw_tp and kprobe programs\n", stderr);
	return session_open(s, &raw, true);
}

static int session_open(struct tt_session *s, const struct tt_env *env,
			bool no_tlbstate)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = env->btf);
	struct tt_probe probe;
	struct stat ns;
	char err[256];
	int ret;

	__u64 t0 = tt_now_ns(), t1, t2;

	memset(s, 0, sizeof(*s));
	ret = tt_probe_kernel(&probe, env->btf, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "tagtrace: %s\n", err);
		return ret;
	}
	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0) {
		fprintf(stderr, "tagtrace: cannot count CPUs: %s\n",
			strerror(-s->nr_cpus));
		tt_probe_free(&probe);
		return s->nr_cpus ? s->nr_cpus : -EINVAL;
	}
	s->wanted = wanted_events(env);
	choose_sources(s, env, &probe, s->wanted);
	if (!any_source(s, wanted_events(env))) {
		fputs("tagtrace: none of the events asked for can be traced on this kernel (no tagged_addr tracepoints, and no fallback for them)\n",
		      stderr);
		tt_probe_free(&probe);
		return -ENOENT;
	}
	s->fault_pointer = probe.fault_pointer &&
			   (s->src[TT_EV_FAULT] == TT_SRC_TP_BTF ||
			    s->src[TT_EV_FAULT] == TT_SRC_RAW_TP);
	s->ctrl_reason = probe.ctrl_reason;
	s->no_tagging = tt_probe_no_tagging(&probe);
	if (s->no_tagging == TT_TAGGING_POSSIBLE)
		s->no_tagging = tt_kernel_refusal();
	s->la57 = probe.la57;
	/* The kernel's BTF, parsed by the probe, for libbpf's load. */
	tt_btf_hand_over(probe.kernel_btf);
	probe.kernel_btf = NULL;
	tt_probe_free(&probe);
	/* Only top and tags read the counters; the process events keep them right. */
	s->counts = env->cmd == TT_CMD_TOP || env->cmd == TT_CMD_TAGS;
	if (times_switches(s))
		tt_probe_syms(&probe);
	s->tlbstate = times_switches(s) && probe.tlbstate && !no_tlbstate;
	/* top --histograms where switches cannot be timed: counters alone. */
	if (env->cmd == TT_CMD_HIST && s->hist_src == TT_SRC_NONE) {
		fputs("tagtrace: cannot time switch_mm_irqs_off here (no such function, or -A btf without fentry)\n",
		      stderr);
		tt_btf_take_back();
		return -ENOENT;
	}

	s->skel = tagtrace_bpf__open_opts(&opts);
	if (!s->skel) {
		ret = -errno;
		tt_btf_take_back();
		fprintf(stderr, "tagtrace: cannot open the BPF object: %s\n",
			strerror(errno));
		return ret;
	}
	s->skel->rodata->targ_tgid = env->pid;
	/* -p names a process of our PID namespace, which BPF must use too. */
	if (!stat("/proc/self/ns/pid", &ns) && ns.st_ino != PROC_PID_INIT_INO) {
		s->own_pidns = true;
		if (env->pid) {
			s->skel->rodata->targ_pidns_dev = ns.st_dev;
			s->skel->rodata->targ_pidns_ino = ns.st_ino;
		}
	}
	memcpy((char *)s->skel->rodata->targ_comm, env->comm, TT_COMM_LEN);
	s->skel->rodata->targ_stream =
		env->cmd == TT_CMD_TRACE ? env->events : 0;
	s->skel->rodata->targ_hist = wants_hist(env);
	s->skel->rodata->targ_usec = env->usec;
	s->skel->rodata->targ_switch_events =
		s->src[TT_EV_SWITCH] == TT_SRC_FENTRY ||
		s->src[TT_EV_SWITCH] == TT_SRC_KPROBE;
	s->skel->rodata->targ_count = s->counts;
	s->skel->rodata->targ_nr_cpus = s->nr_cpus;
	/* trace keeps no process rows: a copy per CPU of 10240 costs. */
	if (!s->counts)
		bpf_map__set_max_entries(s->skel->maps.procs, 1);
	s->skel->rodata->targ_tags = wants_tags(env);
	s->skel->rodata->targ_frames = env->stack ? TT_STACK_MAX : 1;
	if (!wants_tags(env)) {
		bpf_map__set_max_entries(s->skel->maps.tags, 1);
		bpf_map__set_max_entries(s->skel->maps.syscalls, 1);
		bpf_map__set_max_entries(s->skel->maps.wide_tags, 1);
		bpf_map__set_max_entries(s->skel->maps.locs, 1);
	}
	/*
	 * trace is woken by a record into an empty buffer at most once a
	 * millisecond, and when 64 records (or a quarter of a small buffer)
	 * are unread; it polls on a timer for the rest (trace.c).
	 */
	s->skel->rodata->targ_wakeup_ns = 1000000;
	s->skel->rodata->targ_wakeup_bytes =
		64 * (BPF_RINGBUF_HDR_SZ + sizeof(struct tt_record));
	if (s->skel->rodata->targ_wakeup_bytes > env->ringbuf_size / 4)
		s->skel->rodata->targ_wakeup_bytes = env->ringbuf_size / 4;
	s->wakeup_records = (s->skel->rodata->targ_wakeup_bytes +
			     BPF_RINGBUF_HDR_SZ + sizeof(struct tt_record) - 1) /
			    (BPF_RINGBUF_HDR_SZ + sizeof(struct tt_record));
	/* Only trace streams records; the others keep the smallest buffer. */
	bpf_map__set_max_entries(s->skel->maps.events,
				 env->cmd == TT_CMD_TRACE ?
				 env->ringbuf_size : 4096);
	enable_sources(s, env->attach == TT_ATTACH_RAW);

	t1 = tt_now_ns();
	ret = tagtrace_bpf__load(s->skel);
	tt_btf_take_back();	/* if the load did not need it */
	if (ret)
		return bpf_failed(s, env, "load", ret);
	t2 = s->attach_ns = tt_now_ns();
	ret = tagtrace_bpf__attach(s->skel);
	if (ret)
		return bpf_failed(s, env, "attach", ret);
	if (env->verbose)
		fprintf(stderr, "tagtrace: probe+open %.0f ms, load %.0f ms, attach %.0f ms\n",
			(t1 - t0) / 1e6, (t2 - t1) / 1e6,
			(tt_now_ns() - t2) / 1e6);
	return 0;
}

void tt_session_report(const struct tt_session *s, const struct tt_env *env)
{
	__u32 wanted = wanted_events(env);
	bool missing = false;
	int k;

	fputs("tagtrace: sources:", stderr);
	for (k = 0; k < TT_EV_MAX; k++)
		if (wanted & (1U << k))
			fprintf(stderr, " %s=%s", tt_event_name(k),
				tt_source_name(s->src[k]));
	if (s->hist_src != TT_SRC_NONE)
		fprintf(stderr, " hist=%s", tt_source_name(s->hist_src));
	if (times_switches(s))
		fprintf(stderr, " outgoing_mm=%s",
			s->tlbstate ? "cpu_tlbstate" : "last_switch");
	/* Which pointer a fault is "tagged" by: the kernel's, or a guess. */
	if ((wanted & (1U << TT_EV_FAULT)) && s->src[TT_EV_FAULT] != TT_SRC_NONE)
		fprintf(stderr, " fault_pointer=%s",
			tt_fault_pointer_name(!s->fault_pointer));
	fputc('\n', stderr);
	for (k = 0; k < TT_EV_MAX; k++)
		if ((wanted & (1U << k)) && s->src[k] == TT_SRC_NONE)
			missing = true;
	if (missing)
		fputs("tagtrace: unavailable events are not zero but unknown: this kernel lacks the tagged_addr tracepoints\n",
		      stderr);
	if (s->no_tagging != TT_TAGGING_POSSIBLE)
		fprintf(stderr, "tagtrace: no process can get tagging here: %s\n",
			tt_no_tagging_text(s->no_tagging));
}

__u64 tt_session_stat(const struct tt_session *s, __u32 stat)
{
	__u64 vals[s->nr_cpus], sum = 0;
	int i;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &stat, vals))
		return 0;
	for (i = 0; i < s->nr_cpus; i++)
		sum += vals[i];
	return sum;
}

/* A program's runs the kernel skipped; 0 for one not loaded. */
static __u64 prog_missed(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

__u64 tt_session_missed(const struct tt_session *s)
{
	struct bpf_program *prog;
	__u64 n = 0;

	bpf_object__for_each_program(prog, s->skel->obj)
		n += prog_missed(prog);
	return n;
}

/* The event kind a program makes, -1 for none (the process events). */
static int prog_kind(const struct tt_session *s, const struct bpf_program *p)
{
	struct tagtrace_bpf *o = s->skel;
	const struct bpf_program *sw[] = {
		o->progs.switch_mm_fentry, o->progs.switch_mm_fentry_tlb,
		o->progs.switch_mm_fexit, o->progs.switch_mm_kprobe,
		o->progs.switch_mm_kprobe_tlb, o->progs.switch_mm_kretprobe,
	};
	size_t i;
	int k;

	for (k = 0; k < TT_EV_MAX; k++)
		if (p == tp_prog(s, k, false) || p == tp_prog(s, k, true))
			return k;
	if (p == o->progs.arch_prctl_fexit || p == o->progs.arch_prctl_kprobe ||
	    p == o->progs.arch_prctl_kretprobe)
		return TT_EV_CTRL;
	if (p == o->progs.page_fault_btf || p == o->progs.page_fault_raw)
		return TT_EV_FAULT;
	for (i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (p == sw[i])
			return TT_EV_SWITCH;
	return -1;
}

__u64 tt_session_missed_kind(const struct tt_session *s, int k)
{
	struct bpf_program *prog;
	__u64 n = s->link_missed[k];

	bpf_object__for_each_program(prog, s->skel->obj)
		if (prog_kind(s, prog) == k)
			n += prog_missed(prog);
	return n;
}

/*
 * bpf_link_info as far as a kprobe's misses (Linux 6.7), which this
 * system's uapi header may predate: a kernel without the field leaves it 0.
 */
struct kprobe_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	__u32 perf_event_type;
	__u32 pad2;
	__u64 func_name;
	__u32 name_len;
	__u32 offset;
	__u64 addr;
	__u64 missed;
};

#define PERF_EVENT_KPROBE	3	/* enum bpf_perf_event_type */
#define PERF_EVENT_KRETPROBE	4

static __u64 link_missed(const struct bpf_link *link)
{
	struct kprobe_link_info info;
	__u32 len = sizeof(info);
	int fd = link ? bpf_link__fd(link) : -1;

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_LINK_TYPE_PERF_EVENT ||
	    (info.perf_event_type != PERF_EVENT_KPROBE &&
	     info.perf_event_type != PERF_EVENT_KRETPROBE))
		return 0;
	return info.missed;
}

void tt_session_uncounted(const struct tt_session *s, __u32 full_stats,
			  struct tt_uncounted *u)
{
	__u32 k;

	u->full = 0;
	for (k = 0; k < TT_STAT_MAX; k++)
		if (full_stats & (1U << k))
			u->full += tt_session_stat(s, k);
	u->busy = tt_session_stat(s, TT_STAT_BUSY);
	u->missed = tt_session_missed(s);
}

int tt_session_procs_fd(const struct tt_session *s)
{
	return bpf_map__fd(s->skel->maps.procs);
}

int tt_session_slots_fd(const struct tt_session *s)
{
	return bpf_map__fd(s->skel->maps.slots);
}

/* Each transition's histogram, summed over the CPUs; those with switches. */
int tt_session_read_hists(const struct tt_session *s,
			  struct tt_hist_entry *out)
{
	int fd = bpf_map__fd(s->skel->maps.hists), nr = 0, cpu, k;
	struct tt_hist cpus[s->nr_cpus];
	__u32 i;

	for (i = 0; i < TT_HIST_KEYS && nr < TT_MAX_HISTS; i++) {
		struct tt_hist_entry *e = &out[nr];
		__u64 n = 0;

		if (bpf_map_lookup_elem(fd, &i, cpus))
			continue;
		memset(e, 0, sizeof(*e));
		for (cpu = 0; cpu < s->nr_cpus; cpu++) {
			for (k = 0; k < TT_HIST_SLOTS; k++)
				e->hist.slots[k] += cpus[cpu].slots[k];
			e->hist.sum += cpus[cpu].sum;
		}
		for (k = 0; k < TT_HIST_SLOTS; k++)
			n += e->hist.slots[k];
		if (!n)
			continue;
		e->key.prev_mode = i / 2 / TT_MODE_MAX;
		e->key.next_mode = i / 2 % TT_MODE_MAX;
		e->key.same_mm = i % 2;
		nr++;
	}
	return nr;
}

static int add_sys(const void *key, const void *value, void *r)
{
	return tt_tagreport_add_sys(r, key, *(const __u64 *)value) ?
	       -ENOMEM : 0;
}

static int add_wide(const void *key, const void *value, void *r)
{
	return tt_tagreport_add_wide(r, key, *(const __u64 *)value) ?
	       -ENOMEM : 0;
}

/*
 * Every process of the snapshot with its tag values (those past the
 * dense array from wide_tags), then its untags by system call. A process
 * the tags map has no entry for has none yet.
 */
static int add_loc(const void *key, const void *value, void *r)
{
	return tt_tagreport_add_loc(r, key, *(const __u64 *)value) ?
	       -ENOMEM : 0;
}

int tt_session_read_tags(const struct tt_session *s,
			 const struct tt_snapshot *procs,
			 struct tt_tagreport *r)
{
	int tags = bpf_map__fd(s->skel->maps.tags);
	int sys = bpf_map__fd(s->skel->maps.syscalls);
	static struct tt_tags t;
	struct tt_proc_key key;
	size_t i;
	int err;

	tt_tagreport_clear(r);
	for (i = 0; i < procs->nr; i++) {
		const struct tt_row *row = &procs->rows[i];

		memset(&key, 0, sizeof(key));	/* the pad too */
		key.tgid = row->pid;
		key.start_ns = row->start_ns;
		if (tt_tagreport_add(r, row,
				     bpf_map_lookup_elem(tags, &key, &t) ?
				     NULL : &t))
			return -ENOMEM;
	}
	err = tt_map_walk(sys, sizeof(struct tt_sys_key), sizeof(__u64),
			  add_sys, r);
	if (!err)
		err = tt_map_walk(bpf_map__fd(s->skel->maps.wide_tags),
				  sizeof(struct tt_wide_key), sizeof(__u64),
				  add_wide, r);
	if (!err)
		err = tt_map_walk(bpf_map__fd(s->skel->maps.locs),
				  sizeof(struct tt_loc_key), sizeof(__u64),
				  add_loc, r);
	if (err)
		return err;
	r->overflow = tt_session_stat(s, TT_STAT_WIDE_FULL);
	r->locs_full = tt_session_stat(s, TT_STAT_LOCS_FULL);
	tt_tagreport_sort(r);
	return 0;
}

/*
 * Drop the forgotten processes' keys from a map keyed by process and
 * more: walked once for all of them, the keys collected before any is
 * deleted, as a deleted key would restart a walk.
 */
static int forget_keyed(int fd, size_t key_size,
			const struct tt_proc_key *keys, size_t n)
{
	struct tt_procset g;
	int err;

	err = tt_procset_init(&g, keys, n, key_size);
	if (!err)
		err = tt_map_walk(fd, key_size, sizeof(__u64),
				  tt_procset_collect, &g);
	if (!err)
		err = tt_map_delete(fd, g.keys, key_size, g.nr);
	tt_procset_free(&g);
	return err;
}

/*
 * Drop processes from every per-process map: their counters, tag values
 * (both maps), untags by system call and misuse by location.
 */
int tt_session_forget(const struct tt_session *s,
		      const struct tt_proc_key *keys, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = tt_map_delete(bpf_map__fd(s->skel->maps.procs), keys,
			    sizeof(*keys), n);
	if (!err)
		err = tt_map_delete(bpf_map__fd(s->skel->maps.tags), keys,
				    sizeof(*keys), n);
	if (!err)
		err = forget_keyed(bpf_map__fd(s->skel->maps.syscalls),
				   sizeof(struct tt_sys_key), keys, n);
	if (!err)
		err = forget_keyed(bpf_map__fd(s->skel->maps.wide_tags),
				   sizeof(struct tt_wide_key), keys, n);
	if (!err)
		err = forget_keyed(bpf_map__fd(s->skel->maps.locs),
				   sizeof(struct tt_loc_key), keys, n);
	return err;
}

int tt_session_events_fd(const struct tt_session *s)
{
	return bpf_map__fd(s->skel->maps.events);
}

/* A frame's file by the path BPF recorded in the files map. */
static bool file_path(void *ctx, const struct tt_file_key *key,
		      struct tt_path *path)
{
	const struct tt_session *s = ctx;

	return !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.files), key,
				    path);
}

struct tt_usyms *tt_session_usyms(const struct tt_session *s)
{
	return tt_usyms_new(file_path, (void *)s);
}

int tt_session_syms_fd(const struct tt_session *s)
{
	return bpf_map__fd(s->skel->maps.syms);
}

/* Kprobe links' misses go with them: kept by kind, then detached. */
void tt_session_detach(struct tt_session *s)
{
	struct bpf_object_skeleton *sk = s->skel->skeleton;
	int i, k;

	for (i = 0; i < sk->prog_cnt; i++) {
		k = prog_kind(s, *sk->progs[i].prog);
		if (k >= 0)
			s->link_missed[k] += link_missed(*sk->progs[i].link);
	}
	tagtrace_bpf__detach(s->skel);
}

void tt_session_close(struct tt_session *s)
{
	tagtrace_bpf__destroy(s->skel);
	s->skel = NULL;
}
