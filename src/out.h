/* SPDX-License-Identifier: GPL-2.0 */
/* The end of a report: its output flushed and any write error read. */
#ifndef TT_OUT_H
#define TT_OUT_H

#include <stdio.h>

/* tt_out_flush(): the reader went away (EPIPE), a normal end of the run. */
#define TT_OUT_CLOSED	1

/*
 * Flushes out and checks its error flag: 0, TT_OUT_CLOSED, or -errno
 * after a one-line error on stderr. write_err: the errno of a write that
 * failed before (the caller kept it when it saw the flag), 0 if none was
 * kept; the errno a flush leaves is the flush's own, so an unknown cause
 * is EIO, never an older call's errno. SIGPIPE must be ignored (main.c), so
 * a write to a closed pipe returns EPIPE rather than killing tagtrace
 * before it can detach and give its totals.
 */
int tt_out_flush(FILE *out, int write_err);

#endif /* TT_OUT_H */
