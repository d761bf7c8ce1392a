/* SPDX-License-Identifier: GPL-2.0 */
/* One ring buffer record as a text line or an NDJSON object. */
#ifndef TT_RECORD_H
#define TT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "env.h"
#include "usym.h"

/*
 * A kernel address's "symbol+0xoff": in buf, or in a name the resolver
 * keeps until its next call; NULL when unknown.
 */
typedef const char *(*tt_resolve_fn)(void *ctx, __u64 addr, char *buf,
				     size_t len);

struct tt_fmt {
	tt_resolve_fn resolve;		/* names untag callers, when set */
	void *resolve_ctx;
	__u64 start_ns;			/* text times are relative to it */
	/*
	 * Faults' tags come from the register guess (fault_pointer=
	 * registers): said "guessed" in text, guessed_... in JSON.
	 */
	bool fault_tags_guessed;
	/*
	 * Why no process can get tagging here (enum tt_no_tagging): the
	 * reason of a refused enable whose event has none (the fallbacks).
	 */
	int no_tagging;
	/* 5-level paging: user addresses have 56 bits (tt_gp_outside()). */
	bool la57;
	/* User frames to function+offset (usym.c), when set. */
	bool (*locate)(void *ctx, __u32 pid, const struct tt_frame *f,
		       struct tt_uloc *loc);
	void *locate_ctx;
};

/*
 * Where a tagged fault or a #GP happened: the frames that follow such a
 * record (frame 0 its IP, then with --stack the callers).
 */
struct tt_where {
	const struct tt_frame *f;
	unsigned int n;
};

/*
 * The record in data[0..size), or NULL when it is not a whole valid one;
 * its frames into *w (w may be NULL).
 */
const struct tt_record *tt_record_decode(const void *data, size_t size,
					 struct tt_where *w);
void tt_record_header(FILE *out);
/*
 * The bits of a #GP's or #SS's operand set outside its process's tag
 * field, above the user address width: from bit 47 up (bit 56 up with
 * la57; bit 47 up for LAM_U48 at any depth), less the bits the mode
 * ignores. LAM_U57 and UAI ignore 62:57, LAM_U48 62:48, and UAI nothing
 * in an SS reference (trap 12). 0 when every bit set there is in the
 * field: a tagged branch target, which no mode masks.
 */
__u64 tt_gp_outside(const struct tt_record *r, bool la57);
/* w: the record's frames, or NULL. */
void tt_record_text(FILE *out, const struct tt_record *r,
		    const struct tt_where *w, const struct tt_fmt *fmt);
void tt_record_json(FILE *out, const struct tt_record *r,
		    const struct tt_where *w, const struct tt_fmt *fmt);

#endif /* TT_RECORD_H */
