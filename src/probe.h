/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel offers: checked once, before anything loads. */
#ifndef TT_PROBE_H
#define TT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "env.h"

struct btf;

struct tt_probe {
	/* tagged_addr_* and exceptions:page_fault_user, by the program kind */
	bool tp[TT_EV_MAX];	/* tp_btf: its btf_trace_ typedef */
	bool page_fault_tp;
	/*
	 * From kallsyms, read only by tt_probe_syms() (the raw_tp twins and
	 * cpu_tlbstate need it; tp_btf programs do not): reading 10^5
	 * symbols was a third of a start-up under TCG.
	 */
	bool syms_read;
	bool raw_tp[TT_EV_MAX];	/* raw_tp: the tracepoint exists (kallsyms) */
	bool page_fault_raw;
	/*
	 * tagged_addr_fault has pointer, the faulting instruction's operand
	 * (a sixth argument); without it, tagtrace guesses from registers.
	 */
	bool fault_pointer;
	/*
	 * tagged_addr_ctrl has reason, why a request was refused (a ninth
	 * argument); a kernel with the series meant for mainline has not.
	 */
	bool ctrl_reason;
	bool arch_prctl_fn;	/* do_arch_prctl_64, a FUNC in BTF */
	bool switch_mm_fn;	/* switch_mm_irqs_off, a FUNC in BTF */
	/*
	 * cpu_tlbstate usable as a typed __ksym: a VAR in BTF (pahole leaves
	 * per-CPU variables out with --skip_encoding_btf_vars, and before
	 * 1.18) and a symbol in kallsyms (data only with KALLSYMS_ALL).
	 * tlbstate_var: the first half.
	 */
	bool tlbstate;
	bool tlbstate_var;
	/*
	 * Whether a process can get tagging here at all: the CPU's features
	 * (/proc/cpuinfo's flags) and the kernel's (mm_context_t has
	 * untag_mask only with CONFIG_ADDRESS_MASKING).
	 */
	bool cpu_lam, cpu_uai;
	/*
	 * 5-level paging: the kernel lists la57 only while it uses it, so
	 * user addresses have 56 bits, not 47.
	 */
	bool la57;
	bool address_masking;
	/* The kernel's own BTF as parsed for these answers; NULL with --btf. */
	struct btf *kernel_btf;
};

/*
 * The conditions tagtrace cannot run without (root, BTF, the bpf()
 * syscall), then what the kernel has, read from btf_path (--btf), or the
 * kernel's own BTF when NULL; kallsyms when tt_probe_syms() asks. On
 * failure a one-line reason,
 * saying what to do, is in err. tt_probe_free() when done.
 */
int tt_probe_kernel(struct tt_probe *p, const char *btf_path, char *err,
		    size_t len);
void tt_probe_free(struct tt_probe *p);
/* raw_tp[], page_fault_raw and tlbstate, from kallsyms: read once. */
void tt_probe_syms(struct tt_probe *p);

/*
 * Why no process can get tagging on this machine (enum tt_no_tagging):
 * the kernel was built without ADDRESS_MASKING (as distributions build
 * 6.12, with CPU_MITIGATIONS), or it lists neither LAM nor UAI for the
 * CPU.
 */
enum tt_no_tagging tt_probe_no_tagging(const struct tt_probe *p);
/*
 * Where the kernel and the CPU can tag: whether the running kernel still
 * refuses every enable (ARCH_GET_MAX_TAG_BITS says 0 bits), and why, as
 * far as tagtrace can tell: abi.tagged_addr_disabled, or its policy.
 * Ask it before attaching: the query is a ctrl event of its own.
 */
enum tt_no_tagging tt_kernel_refusal(void);

#ifndef ARCH_GET_MAX_TAG_BITS
#define ARCH_GET_MAX_TAG_BITS	0x4003
#endif

/* The flags line of /proc/cpuinfo in f: has it lam, uai? */
void tt_cpu_flags(FILE *f, bool *lam, bool *uai, bool *la57);

/* Has btf's typedef or struct type a member named member? */
bool tt_btf_has_member(const struct btf *btf, const char *type,
		       const char *member);

/*
 * Can fentry/fexit programs attach to func here (BPF trampolines need
 * CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)? Needs func's id in the
 * kernel's own BTF: p's parse if it has one, else a parse of its own.
 */
bool tt_probe_fentry(const struct tt_probe *p, const char *func);

/* A name and the BTF kind it must have (BTF_KIND_*). */
struct tt_btf_name {
	const char *name;
	unsigned int kind;
};

/* Which of the n names btf has as their kind: found[i] for names[i]. */
void tt_btf_find(const struct btf *btf, const struct tt_btf_name *names,
		 bool *found, int n);

/*
 * How many arguments tracepoint tp (e.g. "tagged_addr_ctrl") passes, from
 * its btf_trace_ typedef (a pointer to a prototype of them after a void *);
 * -1 if btf has no such typedef.
 */
int tt_btf_tp_args(const struct btf *btf, const char *tp);

#endif /* TT_PROBE_H */
