// SPDX-License-Identifier: GPL-2.0
/* The processes being pruned: sorted keys and a binary search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "procset.h"

static int key_cmp(const struct tt_proc_key *a, const struct tt_proc_key *b)
{
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return 0;
}

/* qsort's comparator has no context: the count goes through here. */
static unsigned long long sort_compares;

static int sort_cmp(const void *a, const void *b)
{
	sort_compares++;
	return key_cmp(a, b);
}

int tt_procset_init(struct tt_procset *s, const struct tt_proc_key *procs,
		    size_t n, size_t key_size)
{
	memset(s, 0, sizeof(*s));
	s->key_size = key_size;
	if (!n)
		return 0;
	s->procs = malloc(n * sizeof(*procs));
	if (!s->procs)
		return -ENOMEM;
	memcpy(s->procs, procs, n * sizeof(*procs));
	s->nr_procs = n;
	sort_compares = 0;
	qsort(s->procs, n, sizeof(*procs), sort_cmp);
	s->compares = sort_compares;
	return 0;
}

bool tt_procset_has(struct tt_procset *s, const struct tt_proc_key *key)
{
	size_t lo = 0, hi = s->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(key, &s->procs[mid]);

		s->compares++;
		if (!c)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

int tt_procset_collect(const void *key, const void *value, void *ctx)
{
	struct tt_procset *s = ctx;

	(void)value;	/* the count: only the keys are needed */
	if (!tt_procset_has(s, key))
		return 0;
	if (s->nr == s->cap) {
		size_t c = s->cap ? 2 * s->cap : 16;
		char *n = realloc(s->keys, c * s->key_size);

		if (!n)
			return -ENOMEM;
		s->keys = n;
		s->cap = c;
	}
	memcpy(s->keys + s->nr++ * s->key_size, key, s->key_size);
	return 0;
}

void tt_procset_free(struct tt_procset *s)
{
	free(s->procs);
	free(s->keys);
	memset(s, 0, sizeof(*s));
}
