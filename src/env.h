/* SPDX-License-Identifier: GPL-2.0 */
/* What the command line asked for: filled by cli.c, read by everyone. */
#ifndef TT_ENV_H
#define TT_ENV_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "../bpf/tagtrace.h"

enum tt_cmd {
	TT_CMD_TRACE,
	TT_CMD_TOP,
	TT_CMD_HIST,
	TT_CMD_TAGS,
};

/* Which flavour of program to attach when there is a choice. */
enum tt_attach {
	TT_ATTACH_AUTO,		/* tp_btf/fentry when they load, else raw */
	TT_ATTACH_BTF,		/* tp_btf and fentry/fexit only */
	TT_ATTACH_RAW,		/* raw_tp and kprobe/kretprobe only */
	TT_ATTACH_FALLBACK,	/* act as on a kernel without tagged_addr */
};

struct tt_env {
	enum tt_cmd cmd;
	pid_t pid;			/* 0: all */
	char comm[TT_COMM_LEN];		/* "": all */
	__u32 events;			/* 1 << enum tt_event_kind */
	double duration;		/* trace: seconds, 0 = until signal */
	double interval;		/* top/hist: seconds between reports */
	long count;			/* top/hist: reports, 0 = until signal */
	bool json;
	bool verbose;
	bool usec;			/* hist: microseconds */
	bool stack;			/* trace: user stacks of misuse */
	const char *openmetrics;	/* top: file to rewrite each interval */
	bool tag_values;		/* top: tag values in the OpenMetrics file */
	bool histograms;		/* top: switch_mm histograms in it too */
	__u32 ringbuf_size;		/* bytes, power of two >= page size */
	enum tt_attach attach;
	const char *btf;		/* --btf: kernel types from this file */
};

#define TT_ALL_EVENTS		((1U << TT_EV_MAX) - 1)
#define TT_DEFAULT_RINGBUF	(1024 * 1024)

#endif /* TT_ENV_H */
