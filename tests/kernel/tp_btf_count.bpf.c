// SPDX-License-Identifier: GPL-2.0
/*
 * Counts each tagged_addr event through a tp_btf program: proof that the
 * events attach from BPF with BTF-typed arguments.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

enum { CTRL, UNTAG, MODE_SWITCH, FAULT, GP, NR_EVENTS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_EVENTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static void bump(__u32 ev)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &ev);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("tp_btf/tagged_addr_ctrl")
int BPF_PROG(on_ctrl, int interface, int op, int req_bits, int granted_bits,
	     int offset, int mode, __u64 untag_mask, long ret)
{
	/* Count successful enables only, as the test expects. */
	if (op == 0 && ret == 0)
		bump(CTRL);
	return 0;
}

SEC("tp_btf/tagged_addr_untag")
int BPF_PROG(on_untag, unsigned long tagged, unsigned long untagged)
{
	if (tagged != untagged)
		bump(UNTAG);
	return 0;
}

SEC("tp_btf/tagged_addr_mode_switch")
int BPF_PROG(on_mode_switch)
{
	bump(MODE_SWITCH);
	return 0;
}

SEC("tp_btf/tagged_addr_fault")
int BPF_PROG(on_fault)
{
	bump(FAULT);
	return 0;
}

SEC("tp_btf/tagged_addr_gp")
int BPF_PROG(on_gp)
{
	bump(GP);
	return 0;
}
