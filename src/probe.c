// SPDX-License-Identifier: GPL-2.0
/* What the running kernel offers: checked once, before anything loads. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probe.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static const char *const tp_names[TT_EV_MAX] = {
	[TT_EV_CTRL]	= "btf_trace_tagged_addr_ctrl",
	[TT_EV_UNTAG]	= "btf_trace_tagged_addr_untag",
	[TT_EV_SWITCH]	= "btf_trace_tagged_addr_mode_switch",
	[TT_EV_FAULT]	= "btf_trace_tagged_addr_fault",
	[TT_EV_GP]	= "btf_trace_tagged_addr_gp",
};

/* Can a do-nothing fentry program be loaded against func? */
static bool fentry_loads(int func_id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = func_id);
	int fd;

	if (func_id <= 0)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "tt_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int tt_probe_kernel(struct tt_probe *p, char *err, size_t len)
{
	struct btf *btf;
	int i, prctl_id, switch_id;

	memset(p, 0, sizeof(*p));
	if (geteuid() != 0) {
		snprintf(err, len, "needs root (CAP_BPF and CAP_PERFMON): run it with sudo");
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
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, len, "cannot read the kernel's BTF (%s): %s",
			 BTF_PATH, strerror(errno));
		return -EINVAL;
	}
	for (i = 0; i < TT_EV_MAX; i++)
		p->tp[i] = btf__find_by_name_kind(btf, tp_names[i],
						  BTF_KIND_TYPEDEF) > 0;
	p->page_fault_tp = btf__find_by_name_kind(btf,
			"btf_trace_page_fault_user", BTF_KIND_TYPEDEF) > 0;
	prctl_id = btf__find_by_name_kind(btf, "do_arch_prctl_64",
					  BTF_KIND_FUNC);
	switch_id = btf__find_by_name_kind(btf, "switch_mm_irqs_off",
					   BTF_KIND_FUNC);
	p->arch_prctl_fn = prctl_id > 0;
	p->switch_mm_fn = switch_id > 0;
	p->fentry = fentry_loads(switch_id);
	btf__free(btf);
	return 0;
}
