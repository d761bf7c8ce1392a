// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for tests/bench/tool-bench.sh: the cheapest programs on the
 * event tagtrace counts and streams, attached the way tagtrace attaches
 * (tp_btf on tagged_addr_untag). tests/bench/floor.c loads one of them:
 *   empty    does nothing
 *   count    increments a per-CPU counter
 *   ringbuf  reserves and submits an 8-byte record in 16 MiB, as the
 *            bench sizes every tracer's buffer (a failed reserve is
 *            counted in drops), which floor.c consumes and discards
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 * 1024 * 1024);
} rb SEC(".maps");

static __always_inline void bump(void *map)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(map, &zero);

	if (v)
		(*v)++;
}

SEC("tp_btf/tagged_addr_untag")
int BPF_PROG(empty)
{
	return 0;
}

SEC("tp_btf/tagged_addr_untag")
int BPF_PROG(count)
{
	bump(&counts);
	return 0;
}

SEC("tp_btf/tagged_addr_untag")
int BPF_PROG(ringbuf, unsigned long tagged)
{
	__u64 *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (!r) {
		bump(&drops);
		return 0;
	}
	*r = tagged;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
