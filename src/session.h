/* SPDX-License-Identifier: GPL-2.0 */
/* The loaded BPF side: sources chosen, programs attached, maps to read. */
#ifndef TT_SESSION_H
#define TT_SESSION_H

#include "env.h"
#include "histmap.h"
#include "probe.h"

struct tagtrace_bpf;
struct tt_tagreport;
struct tt_snapshot;
struct tt_usyms;

struct tt_session {
	struct tagtrace_bpf *skel;
	enum tt_source src[TT_EV_MAX];	/* per event kind */
	enum tt_source hist_src;	/* switch_mm timing, hist only */
	int nr_cpus;
	__u64 attach_ns;		/* CLOCK_MONOTONIC before attaching */
	bool load_failed;		/* the kernel refused a program */
	bool counts;			/* per-process counters (top) */
	bool tlbstate;			/* outgoing mm from cpu_tlbstate */
	bool own_pidns;			/* not in the initial PID namespace */
	bool fault_pointer;		/* the fault event's pointer field */
	bool ctrl_reason;		/* the ctrl event's reason field */
	enum tt_no_tagging no_tagging;	/* why no process can tag here */
	bool la57;			/* 5-level paging: 56-bit user */
	__u32 wanted;			/* 1 << kind: the command's events */
	__u32 wakeup_records;		/* unread records that wake trace */
	/* Kprobe links' misses by event kind, read when they are detached. */
	__u64 link_missed[TT_EV_MAX];
};

/* Loads and attaches what env needs; -errno after a one-line error on stderr. */
int tt_session_open(struct tt_session *s, const struct tt_env *env);
/*
 * Sets off, once, the events tagtrace can cause itself (an arch_prctl
 * query, a #GP) and checks that their attached sources reported them;
 * a source that did not is broken: said on stderr, -EIO (check.c).
 */
int tt_session_check(struct tt_session *s);
/* Says once, on stderr, which sources were attached and which are missing. */
void tt_session_report(const struct tt_session *s, const struct tt_env *env);
/* A global counter (enum tt_stat) summed over CPUs. */
__u64 tt_session_stat(const struct tt_session *s, __u32 stat);
/*
 * Runs the kernel skipped, summed over the loaded programs: a program is
 * not run again on a CPU where it is running (an event in an NMI or
 * interrupt while it handles one), and only bpf_prog_info's
 * recursion_misses counts it. Each is an event neither counted nor traced.
 */
__u64 tt_session_missed(const struct tt_session *s);
/*
 * The runs skipped of the programs that make events of kind k: their
 * recursion_misses, and for kprobes and kretprobes the misses of their
 * links too (a kprobe that fired while one ran on that CPU, a kretprobe
 * short of instances). Each is at most one event of that kind, exactly one
 * where every run of the program is one (a tagged_addr event unfiltered).
 * Kprobe links' counts are final only after tt_session_detach().
 */
__u64 tt_session_missed_kind(const struct tt_session *s, int k);
/*
 * Events BPF saw and did not count, since the start: full (the sum of the
 * given TT_STAT_*_FULL counters), busy (TT_STAT_BUSY) and missed runs.
 */
struct tt_uncounted {
	__u64 full, busy, missed;
};
void tt_session_uncounted(const struct tt_session *s, __u32 full_stats,
			  struct tt_uncounted *u);
static inline __u64 tt_uncounted_total(const struct tt_uncounted *u)
{
	return u->full + u->busy + u->missed;
}
int tt_session_procs_fd(const struct tt_session *s);
int tt_session_slots_fd(const struct tt_session *s);
/* Every histogram, at most TT_MAX_HISTS, into out; returns how many. */
int tt_session_read_hists(const struct tt_session *s,
			  struct tt_hist_entry *out);
/*
 * The processes of a counter map snapshot (procs.c) with their tag values
 * and untags by system call, busiest in the interval first.
 */
int tt_session_read_tags(const struct tt_session *s,
			 const struct tt_snapshot *procs,
			 struct tt_tagreport *r);
/* Drop n processes from the counter, tag and system call maps. */
int tt_session_forget(const struct tt_session *s,
		      const struct tt_proc_key *keys, size_t n);
int tt_session_events_fd(const struct tt_session *s);
int tt_session_syms_fd(const struct tt_session *s);
/*
 * A symbolizer of the frames BPF located (usym.h), finding their files by
 * the paths BPF recorded; tt_usyms_free() it. NULL: out of memory.
 */
struct tt_usyms *tt_session_usyms(const struct tt_session *s);
/* Detaches every program: no event is produced after it returns. */
void tt_session_detach(struct tt_session *s);
void tt_session_close(struct tt_session *s);

#endif /* TT_SESSION_H */
