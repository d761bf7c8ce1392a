/* SPDX-License-Identifier: GPL-2.0 */
/* One ring buffer record as a text line or an NDJSON object. */
#ifndef TT_RECORD_H
#define TT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "env.h"

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
};

/* The record in data[0..size), or NULL when it is not a whole valid one. */
const struct tt_record *tt_record_decode(const void *data, size_t size);
void tt_record_header(FILE *out);
void tt_record_text(FILE *out, const struct tt_record *r,
		    const struct tt_fmt *fmt);
void tt_record_json(FILE *out, const struct tt_record *r,
		    const struct tt_fmt *fmt);

#endif /* TT_RECORD_H */
