/* SPDX-License-Identifier: GPL-2.0 */
/* May this process load and attach tracing BPF programs? */
#ifndef TT_CAPS_H
#define TT_CAPS_H

#include <stdbool.h>
#include <linux/types.h>

/* The effective capability set, bit n for capability n; 0 on error. */
__u64 tt_caps_effective(void);
/*
 * CAP_BPF with CAP_PERFMON (tracing programs, kprobes), or CAP_SYS_ADMIN,
 * which covers both (and is what kernels before 5.8 ask for).
 */
bool tt_caps_enough(__u64 effective);

#endif /* TT_CAPS_H */
