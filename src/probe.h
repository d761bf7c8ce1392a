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
};

/*
 * The conditions tagtrace cannot run without (root, BTF, the bpf()
 * syscall), then what the kernel has. On failure a one-line reason, saying
 * what to do, is in err.
 */
int tt_probe_kernel(struct tt_probe *p, char *err, size_t len);

/*
 * Can fentry/fexit programs attach to func here (BPF trampolines need
 * CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)? Parses the kernel's BTF for
 * func's id, so it is asked only when an fentry program would be used.
 */
bool tt_probe_fentry(const char *func);

/*
 * Does /proc/kallsyms list the kernel symbol name? A BPF program may use a
 * kernel variable (__ksym) only if so: the verifier looks it up there.
 */
bool tt_probe_ksym(const char *name);

/*
 * Which of the n names are NUL-terminated strings of the BTF string
 * section strs[0..len): found[i] for names[i].
 */
void tt_btf_find_strings(const char *strs, size_t len,
			 const char *const *names, bool *found, int n);

#endif /* TT_PROBE_H */
