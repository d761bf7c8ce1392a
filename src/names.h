/* SPDX-License-Identifier: GPL-2.0 */
/* Names of events, modes and ctrl fields, as the tracepoints print them. */
#ifndef TT_NAMES_H
#define TT_NAMES_H

#include "env.h"

const char *tt_event_name(unsigned int kind);
const char *tt_mode_name(int mode);
const char *tt_if_name(int interface);
const char *tt_op_name(int op);
const char *tt_source_name(unsigned int src);
/* A ctrl event's reason: the tracepoint's name ("unknown" if none). */
const char *tt_reason_name(int reason);
/* Why an enable would be refused, for people; NULL when nothing refuses. */
const char *tt_reason_text(int reason);
/* The x86 trap a gp event reports: "gp" or "ss". */
/*
 * Why no process can get tagging (enum tt_no_tagging): a JSON name and a
 * sentence; NULL for TT_TAGGING_POSSIBLE.
 */
const char *tt_no_tagging_name(int why);
const char *tt_no_tagging_text(int why);
const char *tt_trap_name(int trapnr);

/*
 * comm as ps prints it in the C locale, into buf (TT_COMM_LEN bytes): a
 * process names itself, and control bytes in a name would reach the
 * terminal as escape sequences. Bytes outside printable ASCII become '?'.
 */
const char *tt_comm_text(const char *comm, char *buf);

/* "ctrl,untag": the mask of enum tt_event_kind, or -1 naming the bad word. */
int tt_parse_events(const char *list, __u32 *mask, char *bad, size_t badlen);

#endif /* TT_NAMES_H */
