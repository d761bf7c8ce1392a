// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a report. stdio keeps a failed write's error in the stream's
 * flag, not in a return value anyone checks: a full disk or a broken pipe
 * would otherwise go unnoticed, the run reporting on into nothing and
 * exiting 0 with the output cut short.
 */
#include <errno.h>
#include <string.h>
#include "out.h"

int tt_out_flush(FILE *out, int write_err)
{
	int err;

	errno = 0;
	if (!fflush(out) && !ferror(out))
		return 0;
	/*
	 * The flag without a failing flush: a write while the report was
	 * formatted failed (glibc then drops the buffer). errno is its
	 * cause only if nothing called since set it: the caller says what
	 * it saw, and without that the cause is unknown.
	 */
	err = errno ? errno : write_err ? write_err : EIO;
	if (err == EPIPE)
		return TT_OUT_CLOSED;
	fprintf(stderr, "tagtrace: cannot write the output: %s\n",
		strerror(err));
	return -err;
}
