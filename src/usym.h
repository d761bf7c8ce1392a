/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User frames (struct tt_frame: a file, by device and inode, and an offset
 * in it) to "function+offset" from the file's ELF symbol tables. Each file
 * is read once, when a frame first names it; each (file, offset) is looked
 * up once. Nothing here reads /proc/PID: the frames carry what the process
 * had mapped, so a process that died of its fault is symbolized too.
 */
#ifndef TT_USYM_H
#define TT_USYM_H

#include <stdbool.h>
#include "env.h"

/* The path of the file key names (the files map); false: not known. */
typedef bool (*tt_path_fn)(void *ctx, const struct tt_file_key *key,
			   struct tt_path *path);

/* Where a frame is. Strings stay valid until tt_usyms_free(). */
struct tt_uloc {
	const char *file;	/* the path; NULL: not in a file */
	const char *name;	/* the file's last name */
	const char *build_id;	/* hex; "" when the file has none */
	const char *sym;	/* NULL: no function symbol covers it */
	__u64 off;		/* from sym, or in the file when no sym */
	/* Why there is no sym: "" or "no symbols", "not this file"... */
	const char *why;
};

struct tt_usyms;

struct tt_usyms *tt_usyms_new(tt_path_fn path_of, void *ctx);
/* loc for f; false when f is in no file (its ip is all there is). */
bool tt_usyms_locate(struct tt_usyms *u, const struct tt_frame *f,
		     struct tt_uloc *loc);
void tt_usyms_free(struct tt_usyms *u);

/* The path of p as "/a/b/file"; false when it was cut (too deep, long). */
bool tt_path_join(const struct tt_path *p, char *buf, size_t len);

#endif /* TT_USYM_H */
