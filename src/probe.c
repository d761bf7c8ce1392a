// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel offers: checked once, before anything loads.
 * Whether an event or function exists is read from the names in the
 * kernel's BTF string section, without parsing its types: the full parse
 * costs the time and memory libbpf spends again when it loads the
 * programs, and is done only for the fentry check, which needs a type id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "caps.h"
#include "ksyms.h"
#include "probe.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static const char *const tp_names[TT_EV_MAX] = {
	[TT_EV_CTRL]	= "btf_trace_tagged_addr_ctrl",
	[TT_EV_UNTAG]	= "btf_trace_tagged_addr_untag",
	[TT_EV_SWITCH]	= "btf_trace_tagged_addr_mode_switch",
	[TT_EV_FAULT]	= "btf_trace_tagged_addr_fault",
	[TT_EV_GP]	= "btf_trace_tagged_addr_gp",
};

/* The whole file, or NULL; /sys files report no useful size up front. */
static void *read_file(const char *path, size_t *size)
{
	size_t cap = 4 << 20, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb)
				goto fail;
			buf = nb;
		}
	}
	if (r < 0)
		goto fail;
	close(fd);
	*size = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

bool tt_probe_fentry(const char *func)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = btf__load_vmlinux_btf();
	int id, fd;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
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

bool tt_probe_ksym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	bool found;

	if (!f)
		return false;
	found = ksyms_has(f, name);
	fclose(f);
	return found;
}

int tt_probe_kernel(struct tt_probe *p, char *err, size_t len)
{
	size_t size;
	void *btf;
	int i;

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
	btf = read_file(BTF_PATH, &size);
	if (!btf || !tt_btf_has_string(btf, size, "")) {
		snprintf(err, len, "cannot read the kernel's BTF (%s): %s",
			 BTF_PATH, btf ? "not BTF" : strerror(errno));
		free(btf);
		return -EINVAL;
	}
	for (i = 0; i < TT_EV_MAX; i++)
		p->tp[i] = tt_btf_has_string(btf, size, tp_names[i]);
	p->page_fault_tp = tt_btf_has_string(btf, size,
					     "btf_trace_page_fault_user");
	p->arch_prctl_fn = tt_btf_has_string(btf, size, "do_arch_prctl_64");
	p->switch_mm_fn = tt_btf_has_string(btf, size, "switch_mm_irqs_off");
	free(btf);
	return 0;
}
