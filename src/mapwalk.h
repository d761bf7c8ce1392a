/* SPDX-License-Identifier: GPL-2.0 */
/* Every walk over a BPF hash map, and its deletions, in one place. */
#ifndef TT_MAPWALK_H
#define TT_MAPWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Called for each entry; a nonzero return stops the walk and is returned. */
typedef int (*tt_map_fn)(const void *key, const void *value, void *ctx);

/*
 * Every entry of the hash map fd (keys of key_size bytes, values of
 * value_size, per-CPU values included) to fn: in batches
 * (BPF_MAP_LOOKUP_BATCH, Linux 5.6) where the kernel has them, else one
 * key at a time (get_next_key, then lookup; a key deleted meanwhile is
 * skipped). 0, fn's nonzero return, or -errno.
 */
int tt_map_walk(int fd, size_t key_size, size_t value_size, tt_map_fn fn,
		void *ctx);

/*
 * Delete n keys (key_size bytes each, packed) from fd: in one batch
 * (BPF_MAP_DELETE_BATCH) where the kernel has it, else one at a time. A
 * key that is not there is no error. 0 or -errno.
 */
int tt_map_delete(int fd, const void *keys, size_t key_size, size_t n);

/* Did the walks and deletions use batches (after the first of each)? */
bool tt_map_batched(void);

#endif /* TT_MAPWALK_H */
