/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tags' report: per process, the tag values its pointers carried (untags
 * and faults) and its untags by system call, as text or NDJSON.
 */
#ifndef TT_TAGFMT_H
#define TT_TAGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "env.h"
#include "usym.h"

struct tt_sys_count {
	int nr;			/* x86_64 number, or TT_NO_SYSCALL */
	__u64 count;
};

/* A tag value past the dense array (LAM_U48), from the wide_tags map. */
struct tt_wide_count {
	__u32 tag;
	__u64 untag, fault;
};

/* Where a process's tagged faults or #GPs happened: the locs map. */
struct tt_loc_count {
	__u32 kind;		/* TT_EV_FAULT or TT_EV_GP */
	struct tt_frame f;	/* ip 0 when in a file: its offset says */
	__u64 count;
};

/* Places a process's text report lists, busiest first. */
#define TT_TEXT_LOCS	3

struct tt_tagrow {
	__u32 pid;
	__u64 start_ns;
	char comm[TT_COMM_LEN];
	int mode;
	int tag_bits;
	bool gone;
	__u64 untags;		/* the counter map's untag and fault counts */
	__u64 faults;
	__u64 active;		/* untags and faults in the interval */
	__u64 tagged_faults;
	struct tt_tags tags;
	struct tt_sys_count *sys;
	size_t nr_sys, cap_sys;
	struct tt_wide_count *wide;	/* by tag value, after sorting */
	size_t nr_wide, cap_wide;
	struct tt_loc_count *locs;	/* busiest first, after sorting */
	size_t nr_locs, cap_locs;
};

struct tt_tagreport {
	struct tt_tagrow *rows;
	size_t nr, cap;
	bool by_proc;		/* rows in process order, for add_sys */
	/* Tag values past the array not counted: wide_tags was full. */
	__u64 overflow;
	/* The fault tags are guessed (struct tt_snapshot's, in table.h). */
	bool fault_tags_guessed;
	/* Tagged faults and #GPs not counted by location: locs was full. */
	__u64 locs_full;
	/* Locations to function+offset (usym.h), when set. */
	bool (*locate)(void *ctx, __u32 pid, const struct tt_frame *f,
		       struct tt_uloc *loc);
	void *locate_ctx;
};

struct tt_row;

/* A process of top's snapshot and its tag values (t, NULL: none yet). */
int tt_tagreport_add(struct tt_tagreport *r, const struct tt_row *row,
		     const struct tt_tags *t);
/* Where l is, through r's locate callback; NULL when it cannot say. */
const struct tt_uloc *tt_tagreport_locate(const struct tt_tagreport *r,
					  const struct tt_tagrow *row,
					  const struct tt_loc_count *l,
					  struct tt_uloc *loc);
/* Misuse of a process at one place; ignored for a process not added. */
int tt_tagreport_add_loc(struct tt_tagreport *r, const struct tt_loc_key *key,
			 __u64 count);
/* Untags of a process by system call; ignored for a process not added. */
int tt_tagreport_add_sys(struct tt_tagreport *r, const struct tt_sys_key *key,
			 __u64 count);
/* One wide_tags entry; ignored for a process not added. */
int tt_tagreport_add_wide(struct tt_tagreport *r,
			  const struct tt_wide_key *key, __u64 count);
/*
 * Busiest first: untags and faults in the interval, then since tagtrace
 * started, then pid; each process's system calls busiest first.
 */
void tt_tagreport_sort(struct tt_tagreport *r);
void tt_tagreport_clear(struct tt_tagreport *r);
void tt_tagreport_free(struct tt_tagreport *r);

__u64 tt_tags_total(const __u64 *v);
/* Tag values other than 0 seen in untags or faults, wide ones included. */
int tt_tags_distinct(const struct tt_tagrow *row);

/*
 * src: each event kind's source (enum tt_source). Untags and faults whose
 * event has none (TT_SRC_NONE, a kernel without the tagged_addr events)
 * are unknown, not 0: "-" in text, left out of JSON, as top does. Where
 * r->fault_tags_guessed, every figure that counts fault tags (faults with
 * a tag, faults by tag value, distinct tags) is marked "~" in text and
 * named guessed_... in JSON.
 */
/*
 * The events tags counts: its JSON names their sources. #GPs only for
 * where they happened (a process's locations).
 */
#define TT_TAGS_EVENTS \
	(1U << TT_EV_CTRL | 1U << TT_EV_UNTAG | 1U << TT_EV_FAULT | \
	 1U << TT_EV_GP)

void tt_tags_text(FILE *out, const struct tt_tagreport *r,
		  const enum tt_source *src, size_t max_rows);
void tt_tags_json(FILE *out, const struct tt_tagreport *r,
		  const enum tt_source *src, __u64 ts_ns, double interval,
		  __u64 uncounted);

#endif /* TT_TAGFMT_H */
