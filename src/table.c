// SPDX-License-Identifier: GPL-2.0
/* top's per-process table: snapshots of the counter map, deltas, order. */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "names.h"
#include "table.h"

void tt_proc_merge(const struct tt_proc *copies, int n, struct tt_proc *out)
{
	const struct tt_proc *state = NULL;
	int i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		const struct tt_proc *c = &copies[i];

		for (k = 0; k < TT_EV_MAX; k++)
			out->count[k] += c->count[k];
		out->tagged_faults += c->tagged_faults;
		out->exited |= c->exited;
		if (!state && c->comm[0])
			state = c;
	}
	if (!state)
		return;
	out->mode = state->mode;
	out->tag_bits = state->tag_bits;
	memcpy(out->comm, state->comm, TT_COMM_LEN);
}

void tt_proc_add_slots(struct tt_proc *p, const struct tt_proc_key *key,
		       const struct tt_slots *slots, int n)
{
	const struct tt_slot *sl;
	int i, k;

	for (i = 0; key->tgid && i < n; i++) {
		sl = &slots[i].slot[key->tgid % TT_SLOTS];
		if (sl->tgid != key->tgid || sl->start_ns != key->start_ns)
			continue;
		for (k = 0; k < TT_EV_MAX; k++)
			p->count[k] += sl->count[k];
		p->tagged_faults += sl->tagged_faults;
	}
}

int tt_snapshot_add(struct tt_snapshot *s, const struct tt_proc_key *key,
		    const struct tt_proc *p)
{
	struct tt_row *r;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct tt_row *n = realloc(s->rows, cap * sizeof(*n));

		if (!n)
			return -1;
		s->rows = n;
		s->cap = cap;
	}
	r = &s->rows[s->nr++];
	memset(r, 0, sizeof(*r));
	r->pid = key->tgid;
	r->start_ns = key->start_ns;
	r->gone = p->exited;
	memcpy(r->comm, p->comm, TT_COMM_LEN);
	r->comm[TT_COMM_LEN - 1] = 0;
	r->mode = p->mode;
	r->tag_bits = p->tag_bits;
	memcpy(r->count, p->count, sizeof(r->count));
	memcpy(r->delta, p->count, sizeof(r->delta));
	r->tagged_faults = p->tagged_faults;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct tt_row *x = a, *y = b;

	return tt_proc_order(x->pid, x->start_ns, y->pid, y->start_ns);
}

int tt_proc_order(__u32 pid_a, __u64 start_a, __u32 pid_b, __u64 start_b)
{
	if (pid_a != pid_b)
		return pid_a < pid_b ? -1 : 1;
	return start_a < start_b ? -1 : start_a > start_b;
}

__u64 tt_sum(const __u64 *v, size_t n)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

__u64 tt_row_total(const __u64 *count)
{
	return tt_sum(count, TT_EV_MAX);
}

void tt_snapshot_diff(struct tt_snapshot *cur, struct tt_snapshot *prev)
{
	size_t i;
	int k;

	if (cur->nr)	/* rows is NULL until the first row */
		qsort(cur->rows, cur->nr, sizeof(*cur->rows), by_pid);
	if (prev->nr)
		qsort(prev->rows, prev->nr, sizeof(*prev->rows), by_pid);
	for (i = 0; i < cur->nr; i++) {
		struct tt_row *r = &cur->rows[i];
		const struct tt_row *old = NULL;

		if (prev->nr)
			old = bsearch(r, prev->rows, prev->nr,
				      sizeof(*prev->rows), by_pid);
		if (!old)
			continue;	/* new: its deltas are its counts */
		for (k = 0; k < TT_EV_MAX; k++)
			if (r->count[k] < old->count[k])
				break;
		if (k < TT_EV_MAX)
			continue;	/* a new process that reused the pid */
		for (k = 0; k < TT_EV_MAX; k++)
			r->delta[k] = r->count[k] - old->count[k];
		r->idle = tt_row_total(r->delta) ? 0 : old->idle + 1;
	}
}

static int by_activity(const void *a, const void *b)
{
	const struct tt_row *x = a, *y = b;
	__u64 dx = tt_row_total(x->delta), dy = tt_row_total(y->delta);
	__u64 tx = tt_row_total(x->count), ty = tt_row_total(y->count);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return by_pid(a, b);
}

void tt_snapshot_sort(struct tt_snapshot *s)
{
	if (s->nr)
		qsort(s->rows, s->nr, sizeof(*s->rows), by_activity);
}

void tt_snapshot_clear(struct tt_snapshot *s)
{
	s->nr = 0;
}

void tt_snapshot_free(struct tt_snapshot *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

void tt_uncounted_text(FILE *out, const char *full_what, __u64 full,
		       __u64 busy, __u64 missed)
{
	const char *sep = "";

	if (!full && !busy && !missed)
		return;
	fprintf(out, "  %llu events uncounted (",
		(unsigned long long)(full + busy + missed));
	if (full) {
		fprintf(out, "%llu %s", (unsigned long long)full, full_what);
		sep = ", ";
	}
	if (busy) {
		fprintf(out, "%s%llu map busy", sep, (unsigned long long)busy);
		sep = ", ";
	}
	if (missed)
		fprintf(out, "%s%llu runs missed", sep,
			(unsigned long long)missed);
	fputc(')', out);
}

const char *tt_fault_pointer_name(bool guessed)
{
	return guessed ? "registers" : "event";
}

void tt_count_text(FILE *out, int width, bool known, bool guessed, __u64 n)
{
	char buf[24];

	if (!known) {
		fprintf(out, "%*s", width, "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%s%llu", guessed ? "~" : "",
		 (unsigned long long)n);
	fprintf(out, "%*s", width, buf);
}

void tt_guess_legend(FILE *out)
{
	fputs("~: fault tags guessed from registers, not read from the fault event\n",
	      out);
}

void tt_table_text(FILE *out, const struct tt_snapshot *s,
		   const enum tt_source *src, size_t max_rows)
{
	static const int width[TT_EV_MAX] = { 5, 8, 7, 7, 5 };
	bool faults = src[TT_EV_FAULT] != TT_SRC_NONE;
	size_t i;
	int k;

	if (faults && s->fault_tags_guessed)
		tt_guess_legend(out);
	fprintf(out, "%-7s %-15s %-7s %4s %5s %8s %7s %7s %6s %5s\n", "PID",
		"COMM", "MODE", "BITS", "CTRL", "UNTAG", "SWITCH", "FAULT",
		"TAGFLT", "GP");
	for (i = 0; i < s->nr && i < max_rows; i++) {
		const struct tt_row *r = &s->rows[i];
		char comm[TT_COMM_LEN];

		fprintf(out, "%-7u %-15s %-7s %4d", r->pid,
			tt_comm_text(r->comm, comm),
			tt_mode_name(r->mode), r->tag_bits);
		for (k = 0; k < TT_EV_MAX; k++) {
			fputc(' ', out);
			tt_count_text(out, width[k], src[k] != TT_SRC_NONE,
				      false, r->count[k]);
			/* The faults that carried a tag, after all faults. */
			if (k != TT_EV_FAULT)
				continue;
			fputc(' ', out);
			tt_count_text(out, 6, faults, s->fault_tags_guessed,
				      r->tagged_faults);
		}
		fprintf(out, "%s\n", r->gone ? " (exited)" : "");
	}
	if (s->nr > max_rows)
		fprintf(out, "(%zu more)\n", s->nr - max_rows);
}

static void json_counts(struct json *j, const char *key, const __u64 *count,
			const enum tt_source *src)
{
	struct json o;
	int k;

	json_key(j, key);
	json_begin(&o, j->out);
	for (k = 0; k < TT_EV_MAX; k++)
		if (src[k] != TT_SRC_NONE)
			json_kuint(&o, tt_event_name(k), count[k]);
	json_end(&o);
}

static void json_sources(struct json *j, const enum tt_source *src,
			 __u32 kinds, bool fault_tags_guessed)
{
	struct json o;
	int k;

	json_key(j, "sources");
	json_begin(&o, j->out);
	for (k = 0; k < TT_EV_MAX; k++)
		if (kinds & (1U << k))
			json_kstr(&o, tt_event_name(k),
				  tt_source_name(src[k]));
	if ((kinds & (1U << TT_EV_FAULT)) && src[TT_EV_FAULT] != TT_SRC_NONE)
		json_kstr(&o, "fault_pointer",
			  tt_fault_pointer_name(fault_tags_guessed));
	json_end(&o);
}

void tt_json_report_begin(struct json *j, FILE *out, __u64 ts_ns,
			  double interval, __u64 uncounted,
			  const enum tt_source *src, __u32 kinds,
			  bool fault_tags_guessed)
{
	json_begin(j, out);
	json_kuint(j, "ts_ns", ts_ns);
	json_kdouble(j, "interval_s", interval);
	json_kuint(j, "uncounted", uncounted);
	json_sources(j, src, kinds, fault_tags_guessed);
}

void tt_json_process(struct json *p, FILE *out, __u32 pid, __u64 start_ns,
		     const char *comm, int mode, int tag_bits)
{
	json_begin(p, out);
	json_kuint(p, "pid", pid);
	json_kuint(p, "start_ns", start_ns);
	json_kstr(p, "comm", comm);
	json_kstr(p, "mode", tt_mode_name(mode));
	json_kint(p, "tag_bits", tag_bits);
}

void tt_table_json(FILE *out, const struct tt_snapshot *s,
		   const enum tt_source *src, __u64 ts_ns, double interval,
		   __u64 uncounted)
{
	struct json j;
	size_t i;

	tt_json_report_begin(&j, out, ts_ns, interval, uncounted, src,
			     TT_ALL_EVENTS, s->fault_tags_guessed);
	json_key(&j, "processes");
	fputc('[', out);
	for (i = 0; i < s->nr; i++) {
		const struct tt_row *r = &s->rows[i];
		struct json p;

		if (i)
			fputc(',', out);
		tt_json_process(&p, out, r->pid, r->start_ns, r->comm, r->mode,
				r->tag_bits);
		json_counts(&p, "total", r->count, src);
		json_counts(&p, "interval", r->delta, src);
		if (src[TT_EV_FAULT] != TT_SRC_NONE)
			json_kuint(&p, TT_GUESSED(s->fault_tags_guessed,
						  "tagged_faults"),
				   r->tagged_faults);
		json_kbool(&p, "exited", r->gone);
		json_end(&p);
	}
	fputc(']', out);
	json_end(&j);
	fputc('\n', out);
}
