/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes being pruned, as a set: sorted once, then each key of a
 * map keyed by process and more (syscalls, wide_tags) is looked up in
 * log2(n) comparisons, so a walk of E entries for n processes costs
 * E log2 n, not E * n.
 */
#ifndef TT_PROCSET_H
#define TT_PROCSET_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "../bpf/tagtrace.h"

struct tt_procset {
	struct tt_proc_key *procs;	/* sorted by tgid, then start */
	size_t nr_procs;
	size_t key_size;		/* of the walked map's keys */
	char *keys;			/* the walked keys that matched */
	size_t nr, cap;
	unsigned long long compares;	/* key comparisons, sort included */
};

/*
 * A set of the n processes at procs for a map whose keys are key_size
 * bytes and begin with a struct tt_proc_key. 0 or -ENOMEM.
 */
int tt_procset_init(struct tt_procset *s, const struct tt_proc_key *procs,
		    size_t n, size_t key_size);
bool tt_procset_has(struct tt_procset *s, const struct tt_proc_key *key);
/*
 * A tt_map_walk() callback: keeps a copy of key when its process is in
 * the set (ctx). 0 or -ENOMEM.
 */
int tt_procset_collect(const void *key, const void *value, void *ctx);
void tt_procset_free(struct tt_procset *s);

#endif /* TT_PROCSET_H */
