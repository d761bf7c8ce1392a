/* SPDX-License-Identifier: GPL-2.0 */
/* top's per-process table: snapshots of the counter map, deltas, order. */
#ifndef TT_TABLE_H
#define TT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "env.h"

struct tt_row {
	__u32 pid;
	__u64 start_ns;		/* with pid, the process's key in BPF */
	char comm[TT_COMM_LEN];
	int mode;
	int tag_bits;
	__u64 count[TT_EV_MAX];	/* since tagtrace started */
	__u64 delta[TT_EV_MAX];	/* since the previous snapshot */
	__u64 tagged_faults;	/* of count[TT_EV_FAULT], those with a tag */
	unsigned int idle;	/* snapshots in a row without activity */
	bool gone;		/* the process has exited */
};

struct tt_snapshot {
	struct tt_row *rows;
	size_t nr;
	size_t cap;
	/*
	 * The rows' tagged_faults come from a guess (fault_pointer=registers:
	 * the fault event has no pointer field, or the faults come from
	 * upstream's page_fault_user), not from the pointer the kernel
	 * decoded (fault_pointer=event).
	 */
	bool fault_tags_guessed;
};

/*
 * A figure built on fault tags is named for what they are: where they are
 * guessed, "guessed_" before its JSON name and "~" before its value in
 * text, so that no reader takes a guess for a count.
 */
#define TT_GUESSED(guessed, name)	((guessed) ? "guessed_" name : name)
/* fault_pointer's value: "registers" (guessed) or "event". */
const char *tt_fault_pointer_name(bool guessed);
/*
 * n right-aligned in width: "-" when its event has no source (unknown),
 * "~n" when it counts guessed fault tags.
 */
void tt_count_text(FILE *out, int width, bool known, bool guessed, __u64 n);
/* The line that says what "~" means, in each text report that has one. */
void tt_guess_legend(FILE *out);

/*
 * One process's row from the n per-CPU copies of its counter map entry:
 * the counts summed, exited if any CPU saw the exit, and the state (mode,
 * tag bits, comm), which BPF writes to every copy, from the first copy
 * that has it (a copy another CPU's insert zeroed has no comm until BPF
 * fills it in).
 */
void tt_proc_merge(const struct tt_proc *copies, int n, struct tt_proc *out);
/*
 * Adds to p the counts that the n CPUs' slots (BPF's counting fast path)
 * hold for key: a slot of another process adds nothing.
 */
void tt_proc_add_slots(struct tt_proc *p, const struct tt_proc_key *key,
		       const struct tt_slots *slots, int n);
/* A row for the counter map's entry key, p; gone if BPF saw it exit. */
int tt_snapshot_add(struct tt_snapshot *s, const struct tt_proc_key *key,
		    const struct tt_proc *p);
/*
 * Sorts both by process (pid, then start time) and fills cur's deltas and
 * idle counts from prev.
 */
void tt_snapshot_diff(struct tt_snapshot *cur, struct tt_snapshot *prev);
/* Busiest first: events since the last snapshot, then in total, then pid. */
void tt_snapshot_sort(struct tt_snapshot *s);
void tt_snapshot_clear(struct tt_snapshot *s);
void tt_snapshot_free(struct tt_snapshot *s);
__u64 tt_row_total(const __u64 *count);
__u64 tt_sum(const __u64 *v, size_t n);
/* Processes by pid, then start time: -1, 0 or 1. */
int tt_proc_order(__u32 pid_a, __u64 start_a, __u32 pid_b, __u64 start_b);

/*
 * src: each event kind's source (enum tt_source); a count whose event has
 * none here is unknown, not zero: "-" in text, left out of JSON. Faults
 * with a tag are TAGFLT and tagged_faults, or "~" TAGFLT and
 * guessed_tagged_faults where s->fault_tags_guessed.
 */
void tt_table_text(FILE *out, const struct tt_snapshot *s,
		   const enum tt_source *src, size_t max_rows);
/*
 * "  N events uncounted (F <full>, B map busy, M runs missed)", the parts
 * that are not 0; nothing when all are. full names the map, e.g.
 * "process map full".
 */
void tt_uncounted_text(FILE *out, const char *full_what, __u64 full,
		       __u64 busy, __u64 missed);
struct json;
/*
 * A report's opening: "{ts_ns, interval_s, uncounted, sources" (top and
 * tags); src: each event kind's source, of the kinds (1 << kind) the
 * report counts; sources also says where fault tags come from
 * (fault_pointer) when faults have a source.
 */
void tt_json_report_begin(struct json *j, FILE *out, __u64 ts_ns,
			  double interval, __u64 uncounted,
			  const enum tt_source *src, __u32 kinds,
			  bool fault_tags_guessed);
/* A process's opening: "{pid, start_ns, comm, mode, tag_bits". */
void tt_json_process(struct json *p, FILE *out, __u32 pid, __u64 start_ns,
		     const char *comm, int mode, int tag_bits);
void tt_table_json(FILE *out, const struct tt_snapshot *s,
		   const enum tt_source *src, __u64 ts_ns, double interval,
		   __u64 uncounted);

#endif /* TT_TABLE_H */
