/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's BTF parsed once: the probe's parse goes to libbpf's load,
 * which would otherwise read and parse /sys/kernel/btf/vmlinux again.
 */
#ifndef TT_BTFSHARE_H
#define TT_BTFSHARE_H

struct btf;

/*
 * btf (the kernel's own, from /sys/kernel/btf/vmlinux) is what libbpf's
 * next btf__load_vmlinux_btf() returns, and libbpf's to free; one not
 * taken is freed by tt_btf_take_back() or the next hand-over.
 */
void tt_btf_hand_over(struct btf *btf);
void tt_btf_take_back(void);

#endif /* TT_BTFSHARE_H */
