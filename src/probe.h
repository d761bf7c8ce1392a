/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel offers: checked once, before anything loads. */
#ifndef TT_PROBE_H
#define TT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include "env.h"

struct tt_probe {
	bool tp[TT_EV_MAX];	/* tagged_addr_* tracepoints */
	bool page_fault_tp;	/* exceptions:page_fault_user */
	bool arch_prctl_fn;	/* do_arch_prctl_64 */
	bool switch_mm_fn;	/* switch_mm_irqs_off */
	bool fentry;		/* fentry/fexit programs load here */
};

/*
 * The conditions tagtrace cannot run without (root, BTF, the bpf()
 * syscall), then what the kernel has. On failure a one-line reason, saying
 * what to do, is in err.
 */
int tt_probe_kernel(struct tt_probe *p, char *err, size_t len);

#endif /* TT_PROBE_H */
