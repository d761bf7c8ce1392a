/* SPDX-License-Identifier: GPL-2.0 */
/* The loaded BPF side: sources chosen, programs attached, maps to read. */
#ifndef TT_SESSION_H
#define TT_SESSION_H

#include "env.h"
#include "probe.h"

struct tagtrace_bpf;
struct tt_tagreport;

/* One switch_mm histogram, as read from the hists map. */
struct tt_hist_entry {
	struct tt_hist_key key;
	struct tt_hist hist;
};

#define TT_MAX_HISTS 64	/* the hists map's size */

struct tt_session {
	struct tagtrace_bpf *skel;
	enum tt_source src[TT_EV_MAX];	/* per event kind */
	enum tt_source hist_src;	/* switch_mm timing, hist only */
	int nr_cpus;
	__u64 attach_ns;		/* CLOCK_MONOTONIC before attaching */
	bool load_failed;		/* the kernel refused a program */
	bool counts;			/* per-process counters (top) */
	bool tlbstate;			/* outgoing mm from cpu_tlbstate */
};

/* Loads and attaches what env needs; -errno after a one-line error on stderr. */
int tt_session_open(struct tt_session *s, const struct tt_env *env);
/* Says once, on stderr, which sources were attached and which are missing. */
void tt_session_report(const struct tt_session *s, const struct tt_env *env);
/* A global counter (enum tt_stat) summed over CPUs. */
__u64 tt_session_stat(const struct tt_session *s, __u32 stat);
int tt_session_procs_fd(const struct tt_session *s);
/* Every histogram, at most TT_MAX_HISTS, into out; returns how many. */
int tt_session_read_hists(const struct tt_session *s,
			  struct tt_hist_entry *out);
/* Every process's counters, tag values and untags by system call, sorted. */
int tt_session_read_tags(const struct tt_session *s, struct tt_tagreport *r);
/* Drop n processes from the counter, tag and system call maps. */
int tt_session_forget(const struct tt_session *s,
		      const struct tt_proc_key *keys, size_t n);
int tt_session_events_fd(const struct tt_session *s);
int tt_session_syms_fd(const struct tt_session *s);
/* Detaches every program: no event is produced after it returns. */
void tt_session_detach(struct tt_session *s);
void tt_session_close(struct tt_session *s);

#endif /* TT_SESSION_H */
