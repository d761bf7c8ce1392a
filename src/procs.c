// SPDX-License-Identifier: GPL-2.0
/*
 * The per-process counter map as top and tags read it. BPF keys it by pid
 * and start time, so a reused pid is a new row. A process that has exited
 * stays listed until it has been idle for TT_PRUNE_AFTER reports, then
 * leaves every per-process map so that a long run does not fill them.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mapwalk.h"
#include "procs.h"

/*
 * Is pid the process that started at start_ns (boot time, BPF's key)?
 * /proc/PID/stat's 22nd field is that start in clock ticks. Unreadable
 * for another reason than its absence: taken to be.
 */
static bool started_at(__u32 pid, __u64 start_ns)
{
	static long tick_ns;
	unsigned long long ticks;
	char path[32], buf[512], *p;
	size_t n;
	FILE *f;
	int i;

	if (!tick_ns)
		tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno != ENOENT && errno != ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* comm, field 2, may hold spaces and parentheses: after the last ')'. */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &ticks) != 1)
		return true;
	return ticks == start_ns / tick_ns;
}

/*
 * BPF marks a process whose last thread exited. One it never saw exit (it
 * exited while the programs were being attached) is gone when /proc has
 * no process of its PID that started when it did: a PID in use since is
 * another process's. In a PID namespace of its own, tagtrace's /proc has
 * other numbers than BPF's (the initial namespace's): BPF's mark alone.
 */
static bool process_gone(const struct tt_session *s, const struct tt_row *r)
{
	if (r->gone)
		return true;
	if (s->own_pidns)
		return false;
	return !started_at(r->pid, r->start_ns);
}

/* The counter map's values are per CPU: a copy of the row for each. */
_Static_assert(sizeof(struct tt_proc) % 8 == 0,
	       "a per-CPU value's copies are 8-byte aligned");

_Static_assert(sizeof(struct tt_slots) % 8 == 0,
	       "a per-CPU value's copies are 8-byte aligned");

struct walk {
	struct tt_snapshot *cur;
	const struct tt_slots *slots;	/* NULL: not read */
	int nr_cpus;
};

static int add_row(const void *key, const void *value, void *ctx)
{
	struct walk *w = ctx;
	struct tt_proc p;

	tt_proc_merge(value, w->nr_cpus, &p);
	if (w->slots)
		tt_proc_add_slots(&p, key, w->slots, w->nr_cpus);
	return tt_snapshot_add(w->cur, key, &p) ? -ENOMEM : 0;
}

int tt_procs_snapshot(const struct tt_session *s, struct tt_snapshot *cur,
		      struct tt_snapshot *prev, bool verbose)
{
	static struct tt_slots *slots;
	static bool said;
	__u32 zero = 0;
	int err;
	size_t i;

	tt_snapshot_clear(cur);
	cur->fault_tags_guessed = !s->fault_pointer;
	/*
	 * Counts in slots never move to rows, nor back: the slots and the
	 * rows can be read in either order.
	 */
	if (!slots)
		slots = calloc(s->nr_cpus, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	if (bpf_map_lookup_elem(tt_session_slots_fd(s), &zero, slots))
		return -errno;
	err = tt_map_walk(tt_session_procs_fd(s), sizeof(struct tt_proc_key),
			  s->nr_cpus * sizeof(struct tt_proc), add_row,
			  &(struct walk){ cur, slots, s->nr_cpus });
	if (verbose && !said) {
		fprintf(stderr, "tagtrace: reading the maps %s\n",
			tt_map_batched() ? "in batches" : "one key at a time");
		said = true;
	}
	if (err)
		return err;
	tt_snapshot_diff(cur, prev);
	for (i = 0; i < cur->nr; i++)
		cur->rows[i].gone = process_gone(s, &cur->rows[i]);
	return 0;
}

void tt_procs_prune(const struct tt_session *s, const struct tt_snapshot *cur)
{
	static struct tt_proc_key *keys;
	static size_t cap;
	size_t i, n = 0;

	if (cur->nr > cap) {
		struct tt_proc_key *k = realloc(keys, cur->nr * sizeof(*k));

		if (!k)
			return;		/* pruned at the next report */
		keys = k;
		cap = cur->nr;
	}
	for (i = 0; i < cur->nr; i++) {
		const struct tt_row *r = &cur->rows[i];

		if (r->gone && r->idle >= TT_PRUNE_AFTER) {
			memset(&keys[n], 0, sizeof(keys[n]));	/* the pad too */
			keys[n].tgid = r->pid;
			keys[n++].start_ns = r->start_ns;
		}
	}
	tt_session_forget(s, keys, n);
}
