// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf 1.1.2 has no way to give a bpf_object the kernel BTF a program
 * already holds (btf_custom_path is read from a file, for CO-RE only),
 * and its load parses the kernel's BTF whenever the object has a typed
 * __ksym, tp_btf or fentry programs, or CO-RE relocations: the same 3 to
 * 5 MB the probe parsed moments before, a read of it, twice its size in
 * memory while it is copied, and the type index. libbpf.a's libbpf.o
 * calls btf__load_vmlinux_btf() in btf.o; the link wraps that call
 * (-Wl,--wrap, Makefile), so the load takes the probe's parse instead
 * and frees it after the load, as it frees its own.
 */
#include <bpf/btf.h>
#include "btfshare.h"

static struct btf *handed;

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	struct btf *btf = handed;

	if (!btf)
		return __real_btf__load_vmlinux_btf();
	handed = NULL;
	return btf;
}

void tt_btf_hand_over(struct btf *btf)
{
	btf__free(handed);
	handed = btf;
}

void tt_btf_take_back(void)
{
	btf__free(handed);
	handed = NULL;
}
