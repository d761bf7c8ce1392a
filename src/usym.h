/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User frames (struct tt_frame: a file, by device and inode, and an offset
 * in it) to "function+offset" from the file's ELF symbol tables. Each file
 * is read once, when a frame first names it; each (file, offset) is looked
 * up once. The frames carry what the process had mapped, so a process that
 * died of its fault is symbolized too; /proc/PID/maps serves only the
 * frames BPF could not place.
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
	__u64 file_off;		/* in the file */
	/* Why there is no sym: "" or "no symbols", "not this file"... */
	const char *why;
};

struct tt_usyms;

struct tt_usyms *tt_usyms_new(tt_path_fn path_of, void *ctx);
/*
 * loc for f, a frame of process pid; false when f is in no file (its ip
 * is all there is). A frame BPF could not place is placed from
 * /proc/PID/maps if the process still runs (pid 0: not tried).
 */
bool tt_usyms_locate(struct tt_usyms *u, __u32 pid, const struct tt_frame *f,
		     struct tt_uloc *loc);
/* tt_usyms_locate() as the locate callback of struct tt_fmt and tt_tagreport. */
bool tt_usyms_locate_ctx(void *u, __u32 pid, const struct tt_frame *f,
			 struct tt_uloc *loc);
void tt_usyms_free(struct tt_usyms *u);

/*
 * f as a reader wants it, into buf: "function+0x1a (file)", "0xip
 * (file+0xoff)" where no function covers it ("file+0xoff" for a place
 * with no ip), "0xip" outside any file (loc NULL: not located). Function names are cut at TT_USYM_TEXT_SYM bytes.
 */
#define TT_USYM_TEXT_SYM	256
void tt_uloc_text(const struct tt_frame *f, const struct tt_uloc *loc,
		  char *buf, size_t len);

/* The path of p as "/a/b/file"; false when it was cut (too deep, long). */
bool tt_path_join(const struct tt_path *p, char *buf, size_t len);

#endif /* TT_USYM_H */
