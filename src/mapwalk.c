// SPDX-License-Identifier: GPL-2.0
/*
 * One walk over a BPF hash map for every reader of tagtrace's maps: the
 * counters, the tag values and the system calls. Batches cost a system
 * call per WALK_BATCH entries where get_next_key and lookup cost two per
 * entry; kernels before 5.6, or maps without batch operations, refuse
 * them on the first call (-EINVAL, or -ENOTSUPP, 524), and every later
 * walk goes one key at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "mapwalk.h"

#define WALK_BATCH	256	/* entries a read; a hash bucket holds fewer */
#define ENOTSUPP	524	/* the kernel's, not in the uapi headers */

static int batches = -1;	/* unknown yet */

static bool refused(int err)
{
	return err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP;
}

bool tt_map_batched(void)
{
	return batches > 0;
}

/* -ENOTSUPP when the very first batch is refused: nothing was walked. */
static int walk_batch(int fd, size_t ksz, size_t vsz, tt_map_fn fn,
		      void *ctx)
{
	/* The token is a bucket index for hash maps: key-sized to be safe. */
	char *keys = malloc(WALK_BATCH * ksz), *vals = malloc(WALK_BATCH * vsz);
	char *token = calloc(1, ksz < 8 ? 8 : ksz);
	void *in = NULL;
	int err, ret = 0;
	__u32 n, i;

	if (!keys || !vals || !token) {
		ret = -ENOMEM;
		goto out;
	}
	do {
		n = WALK_BATCH;
		err = bpf_map_lookup_batch(fd, in, token, keys, vals, &n, NULL);
		if (err && errno != ENOENT) {
			ret = -errno;
			if (!in && refused(ret))
				ret = -ENOTSUPP;
			break;
		}
		for (i = 0; i < n && !ret; i++)
			ret = fn(keys + i * ksz, vals + i * vsz, ctx);
		in = token;
	} while (!err && !ret);
out:
	free(keys);
	free(vals);
	free(token);
	return ret;
}

static int walk_iter(int fd, size_t ksz, size_t vsz, tt_map_fn fn,
		     void *ctx)
{
	char *key = malloc(ksz), *next = malloc(ksz), *val = malloc(vsz);
	void *prev = NULL;
	int ret = 0;

	if (!key || !next || !val) {
		ret = -ENOMEM;
		goto out;
	}
	while (!ret && !bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, ksz);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, val))
			continue;	/* deleted meanwhile */
		ret = fn(key, val, ctx);
	}
out:
	free(key);
	free(next);
	free(val);
	return ret;
}

int tt_map_walk(int fd, size_t key_size, size_t value_size, tt_map_fn fn,
		void *ctx)
{
	int ret;

	if (batches) {
		ret = walk_batch(fd, key_size, value_size, fn, ctx);
		if (ret != -ENOTSUPP) {
			batches = 1;
			return ret;
		}
		batches = 0;
	}
	return walk_iter(fd, key_size, value_size, fn, ctx);
}

int tt_map_delete(int fd, const void *keys, size_t key_size, size_t n)
{
	const char *k = keys;
	size_t done = 0;
	__u32 count;
	int err;

	/* A batch stops at a key that is not there: go on after it. */
	while (batches && done < n) {
		count = n - done;
		if (!bpf_map_delete_batch(fd, k + done * key_size, &count,
					  NULL)) {
			batches = 1;
			return 0;
		}
		err = -errno;
		if (err == -ENOENT) {
			batches = 1;
			done += count + 1;
			continue;
		}
		if (batches < 0 && refused(err)) {
			batches = 0;
			break;
		}
		return err;
	}
	for (; done < n; done++)
		if (bpf_map_delete_elem(fd, k + done * key_size) &&
		    errno != ENOENT)
			return -errno;
	return 0;
}
