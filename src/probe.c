// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel offers: checked once, before anything loads.
 * Each name is looked up in the BTF as the kind it must be (btfnames.c),
 * and the symbols in one pass over /proc/kallsyms:
 *   - a tp_btf program needs the event's btf_trace_ typedef and the
 *     kernel's own BTF; its raw_tp twin only the tracepoint, whose
 *     __traceiter_ function kallsyms lists whatever the BTF has;
 *   - the fallbacks need their function (a FUNC);
 *   - the typed __ksym cpu_tlbstate needs a VAR, which a kernel built
 *     with pahole --skip_encoding_btf_vars lacks, and a kallsyms entry.
 * With --btf FILE the types come from FILE, as libbpf's CO-RE relocations
 * then do; the kernel's own BTF is still required, as libbpf resolves the
 * typed __ksym and the tp_btf and fentry attach points in it alone (and
 * loads it for any object with a typed __ksym, used or not).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "caps.h"
#include "ksyms.h"
#include "probe.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

/* The tracepoints by event kind, then the fallbacks' sources. */
enum {
	N_PAGE_FAULT = TT_EV_MAX,
	N_ARCH_PRCTL,
	N_SWITCH_MM,
	N_TLBSTATE,
	NAMES
};

static const struct tt_btf_name btf_names[NAMES] = {
	[TT_EV_CTRL]	= { "btf_trace_tagged_addr_ctrl", BTF_KIND_TYPEDEF },
	[TT_EV_UNTAG]	= { "btf_trace_tagged_addr_untag", BTF_KIND_TYPEDEF },
	[TT_EV_SWITCH]	= { "btf_trace_tagged_addr_mode_switch", BTF_KIND_TYPEDEF },
	[TT_EV_FAULT]	= { "btf_trace_tagged_addr_fault", BTF_KIND_TYPEDEF },
	[TT_EV_GP]	= { "btf_trace_tagged_addr_gp", BTF_KIND_TYPEDEF },
	[N_PAGE_FAULT]	= { "btf_trace_page_fault_user", BTF_KIND_TYPEDEF },
	[N_ARCH_PRCTL]	= { "do_arch_prctl_64", BTF_KIND_FUNC },
	[N_SWITCH_MM]	= { "switch_mm_irqs_off", BTF_KIND_FUNC },
	[N_TLBSTATE]	= { "cpu_tlbstate", BTF_KIND_VAR },
};

/* The same, as kallsyms names them. */
static const char *const sym_names[NAMES] = {
	[TT_EV_CTRL]	= "__traceiter_tagged_addr_ctrl",
	[TT_EV_UNTAG]	= "__traceiter_tagged_addr_untag",
	[TT_EV_SWITCH]	= "__traceiter_tagged_addr_mode_switch",
	[TT_EV_FAULT]	= "__traceiter_tagged_addr_fault",
	[TT_EV_GP]	= "__traceiter_tagged_addr_gp",
	[N_PAGE_FAULT]	= "__traceiter_page_fault_user",
	[N_ARCH_PRCTL]	= "do_arch_prctl_64",
	[N_SWITCH_MM]	= "switch_mm_irqs_off",
	[N_TLBSTATE]	= "cpu_tlbstate",
};

bool tt_probe_fentry(const struct tt_probe *p, const char *func)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = p->kernel_btf ? p->kernel_btf : btf__load_vmlinux_btf();
	int id, fd;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (btf != p->kernel_btf)
		btf__free(btf);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "tt_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#define EVENTS_DIR "/sys/kernel/tracing/events/tagged_addr/"

/*
 * Does tagged_addr_@event have its argument number @nr (from 1), named
 * @field? A program that reads an argument the event lacks is refused by
 * the verifier (tp_btf) or at attach (raw_tp), so the programs are chosen
 * by the event's arity. Its btf_trace_ typedef points to a prototype of
 * the tracepoint's arguments after a void *. A BTF without the typedef
 * leaves the tracefs format, where tracefs is mounted, which names the
 * event's fields (the series records each argument under its own name).
 */
static bool event_has_arg(const struct btf *btf, const char *event, int nr,
			  const char *field)
{
	char line[256], name[80];
	bool found = false;
	FILE *f;
	int n;

	snprintf(name, sizeof(name), "tagged_addr_%s", event);
	n = tt_btf_tp_args(btf, name);
	if (n >= 0)
		return n >= nr;
	snprintf(name, sizeof(name), EVENTS_DIR "tagged_addr_%s/format", event);
	f = fopen(name, "r");
	if (!f)
		return false;
	snprintf(name, sizeof(name), " %s;", field);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

/* Which of the names kallsyms lists; false for each if it is unreadable. */
static bool read_ksyms(bool *found)
{
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		memset(found, 0, NAMES * sizeof(*found));
		return false;
	}
	ksyms_find(f, sym_names, found, NAMES);
	fclose(f);
	return true;
}

int tt_probe_kernel(struct tt_probe *p, const char *btf_path, char *err,
		    size_t len)
{
	FILE *cpuinfo;
	bool in_btf[NAMES];
	const char *path = btf_path ? btf_path : BTF_PATH;
	struct btf *btf;
	int i, ret;

	memset(p, 0, sizeof(*p));
	if (!tt_caps_enough(tt_caps_effective())) {
		snprintf(err, len, "needs root, or CAP_BPF and CAP_PERFMON: run it with sudo");
		return -EPERM;
	}
	if (access(BTF_PATH, R_OK)) {
		snprintf(err, len, "kernel has no BTF (%s); build it with CONFIG_DEBUG_INFO_BTF=y",
			 BTF_PATH);
		return -ENOENT;
	}
	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_KPROBE, NULL) != 1) {
		snprintf(err, len, "BPF is unavailable here (bpf(): %s); needs CONFIG_BPF_SYSCALL=y and CONFIG_BPF_EVENTS=y",
			 strerror(errno));
		return -ENOSYS;
	}
	btf = btf__parse(path, NULL);
	if (!btf) {
		ret = -errno;
		snprintf(err, len, "cannot read BTF from %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	tt_btf_find(btf, btf_names, in_btf, NAMES);
	p->fault_pointer = event_has_arg(btf, "fault", 6, "pointer");
	p->ctrl_reason = event_has_arg(btf, "ctrl", 9, "reason");
	p->address_masking = tt_btf_has_member(btf, "mm_context_t",
					       "untag_mask");
	cpuinfo = fopen("/proc/cpuinfo", "r");
	if (cpuinfo) {
		tt_cpu_flags(cpuinfo, &p->cpu_lam, &p->cpu_uai, &p->la57);
		fclose(cpuinfo);
	} else {
		p->cpu_lam = p->cpu_uai = true;	/* not known: not said */
	}
	if (btf_path)
		btf__free(btf);
	else
		p->kernel_btf = btf;	/* for tt_probe_fentry() */
	for (i = 0; i < TT_EV_MAX; i++)
		p->tp[i] = in_btf[i];
	p->page_fault_tp = in_btf[N_PAGE_FAULT];
	p->arch_prctl_fn = in_btf[N_ARCH_PRCTL];
	p->switch_mm_fn = in_btf[N_SWITCH_MM];
	p->tlbstate_var = in_btf[N_TLBSTATE];
	return 0;
}

void tt_probe_syms(struct tt_probe *p)
{
	bool in_syms[NAMES], syms;
	int i;

	if (p->syms_read)
		return;
	p->syms_read = true;
	syms = read_ksyms(in_syms);
	/* kallsyms unreadable: the typedef says the event exists. */
	for (i = 0; i < TT_EV_MAX; i++)
		p->raw_tp[i] = syms ? in_syms[i] : p->tp[i];
	p->page_fault_raw = syms ? in_syms[N_PAGE_FAULT] : p->page_fault_tp;
	p->tlbstate = p->tlbstate_var && in_syms[N_TLBSTATE];
}

void tt_probe_free(struct tt_probe *p)
{
	btf__free(p->kernel_btf);
	p->kernel_btf = NULL;
}
