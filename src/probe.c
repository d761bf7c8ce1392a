// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel offers: checked once, before anything loads.
 * Whether an event or function exists is read from the names in the
 * kernel's BTF string section, read alone and searched once for them all,
 * without parsing the types: the full parse costs the time and memory
 * libbpf spends again when it loads the programs, and is done only for
 * the fentry check, which needs a type id.
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

/* The tracepoints by event kind, then the fallbacks' sources. */
#define NAMES	(TT_EV_MAX + 3)
static const char *const names[NAMES] = {
	[TT_EV_CTRL]	= "btf_trace_tagged_addr_ctrl",
	[TT_EV_UNTAG]	= "btf_trace_tagged_addr_untag",
	[TT_EV_SWITCH]	= "btf_trace_tagged_addr_mode_switch",
	[TT_EV_FAULT]	= "btf_trace_tagged_addr_fault",
	[TT_EV_GP]	= "btf_trace_tagged_addr_gp",
	[TT_EV_MAX]	= "btf_trace_page_fault_user",
	[TT_EV_MAX + 1]	= "do_arch_prctl_64",
	[TT_EV_MAX + 2]	= "switch_mm_irqs_off",
};

/*
 * The kernel BTF's string section, read alone (sysfs gives it a page per
 * read): the types, more than half the file, are not needed here. 0 or a
 * negative errno, -EINVAL when the file is not BTF.
 */
static int read_btf_strings(char **strs, size_t *len)
{
	struct btf_header h;
	size_t n = 0;
	ssize_t r = 0;
	char *buf = NULL;
	int fd = open(BTF_PATH, O_RDONLY | O_CLOEXEC), err = -EINVAL;

	if (fd < 0)
		return -errno;
	r = pread(fd, &h, sizeof(h), 0);
	if (r != sizeof(h) || h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) ||
	    !h.str_len)
		goto out;
	buf = malloc(h.str_len);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	while (n < h.str_len &&
	       (r = pread(fd, buf + n, h.str_len - n,
			  (off_t)h.hdr_len + h.str_off + n)) > 0)
		n += r;
	if (r < 0)
		err = -errno;
	/* The section starts with "" and every string ends in a NUL. */
	else if (n == h.str_len && !buf[0] && !buf[n - 1])
		err = 0;
out:
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*strs = buf;
	*len = n;
	return 0;
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
	bool found[NAMES];
	size_t size = 0;
	char *strs = NULL;
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
	ret = read_btf_strings(&strs, &size);
	if (ret) {
		snprintf(err, len, "cannot read the kernel's BTF (%s): %s",
			 BTF_PATH, ret == -EINVAL ? "not BTF" : strerror(-ret));
		return ret;
	}
	tt_btf_find_strings(strs, size, names, found, NAMES);
	free(strs);
	for (i = 0; i < TT_EV_MAX; i++)
		p->tp[i] = found[i];
	p->page_fault_tp = found[TT_EV_MAX];
	p->arch_prctl_fn = found[TT_EV_MAX + 1];
	p->switch_mm_fn = found[TT_EV_MAX + 2];
	return 0;
}
