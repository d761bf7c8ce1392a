// SPDX-License-Identifier: GPL-2.0
/*
 * tags' report: per process, the tag values its pointers carried (untags
 * and faults) and its untags by system call, as text or NDJSON. Untag
 * events exist only for tagged pointers, so tag 0 (untagged) is counted
 * among faults alone. No share of untagged pointers is given: the untagged
 * pointers seen are those that faulted, mostly demand paging, and say
 * nothing of the loads and stores that did not fault.
 */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "names.h"
#include "sysnames.h"
#include "table.h"
#include "tagfmt.h"

#define TEXT_WIDTH 80

static void *grow(void *p, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 16;
	void *q = realloc(p, n * size);

	if (q)
		*cap = n;
	return q;
}

int tt_tagreport_add(struct tt_tagreport *r, const struct tt_row *p,
		     const struct tt_tags *t)
{
	struct tt_tagrow *row;

	if (r->nr == r->cap) {
		struct tt_tagrow *n = grow(r->rows, &r->cap, sizeof(*n));

		if (!n)
			return -1;
		r->rows = n;
	}
	row = &r->rows[r->nr++];
	r->by_proc = false;
	memset(row, 0, sizeof(*row));
	row->pid = p->pid;
	row->start_ns = p->start_ns;
	memcpy(row->comm, p->comm, TT_COMM_LEN);
	row->comm[TT_COMM_LEN - 1] = 0;
	row->mode = p->mode;
	row->tag_bits = p->tag_bits;
	row->gone = p->gone;
	row->untags = p->count[TT_EV_UNTAG];
	row->faults = p->count[TT_EV_FAULT];
	row->active = p->delta[TT_EV_UNTAG] + p->delta[TT_EV_FAULT];
	row->tagged_faults = p->tagged_faults;
	if (t)
		row->tags = *t;
	return 0;
}

static int by_proc(const void *a, const void *b)
{
	const struct tt_tagrow *x = a, *y = b;

	return tt_proc_order(x->pid, x->start_ns, y->pid, y->start_ns);
}

/*
 * A search, not a scan: a long tags run holds up to 10240 processes and
 * 40960 (process, call) pairs, read every interval.
 */
static struct tt_tagrow *find_row(struct tt_tagreport *r,
				  const struct tt_proc_key *proc)
{
	struct tt_tagrow want = {
		.pid = proc->tgid, .start_ns = proc->start_ns,
	};

	if (!r->by_proc) {
		if (r->nr)
			qsort(r->rows, r->nr, sizeof(*r->rows), by_proc);
		r->by_proc = true;
	}
	return r->nr ? bsearch(&want, r->rows, r->nr, sizeof(*r->rows),
			       by_proc) : NULL;
}

int tt_tagreport_add_wide(struct tt_tagreport *r,
			  const struct tt_wide_key *key, __u64 count)
{
	struct tt_tagrow *row = find_row(r, &key->proc);
	struct tt_wide_count *w;

	if (!row || (key->kind != TT_EV_UNTAG && key->kind != TT_EV_FAULT))
		return 0;
	/* Appended: tt_tagreport_sort() merges a value's untags and faults. */
	if (row->nr_wide == row->cap_wide) {
		struct tt_wide_count *n = grow(row->wide, &row->cap_wide,
					       sizeof(*n));

		if (!n)
			return -1;
		row->wide = n;
	}
	w = &row->wide[row->nr_wide++];
	memset(w, 0, sizeof(*w));
	w->tag = key->tag;
	if (key->kind == TT_EV_UNTAG)
		w->untag = count;
	else
		w->fault = count;
	return 0;
}

int tt_tagreport_add_loc(struct tt_tagreport *r, const struct tt_loc_key *key,
			 __u64 count)
{
	struct tt_tagrow *row = find_row(r, &key->proc);
	struct tt_loc_count *l;

	if (!row)
		return 0;
	if (row->nr_locs == row->cap_locs) {
		struct tt_loc_count *n = grow(row->locs, &row->cap_locs,
					      sizeof(*n));

		if (!n)
			return -1;
		row->locs = n;
	}
	l = &row->locs[row->nr_locs++];
	memset(l, 0, sizeof(*l));
	l->kind = key->kind;
	l->count = count;
	l->f.file = key->file;
	if (key->file.ino)
		l->f.file_off = key->off;
	else
		l->f.ip = key->off;
	return 0;
}

static int by_loc_count(const void *a, const void *b)
{
	const struct tt_loc_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->f.file.ino != y->f.file.ino)
		return x->f.file.ino < y->f.file.ino ? -1 : 1;
	if (x->f.file_off != y->f.file_off)
		return x->f.file_off < y->f.file_off ? -1 : 1;
	return x->f.ip < y->f.ip ? -1 : x->f.ip > y->f.ip;
}

static int by_tag(const void *a, const void *b)
{
	const struct tt_wide_count *x = a, *y = b;

	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* A row's wide tag values by value, one entry a value. */
static void sort_wide(struct tt_tagrow *row)
{
	size_t i, n = 0;

	if (!row->nr_wide)
		return;
	qsort(row->wide, row->nr_wide, sizeof(*row->wide), by_tag);
	for (i = 1; i < row->nr_wide; i++) {
		if (row->wide[i].tag == row->wide[n].tag) {
			row->wide[n].untag += row->wide[i].untag;
			row->wide[n].fault += row->wide[i].fault;
		} else {
			row->wide[++n] = row->wide[i];
		}
	}
	row->nr_wide = n + 1;
}

int tt_tagreport_add_sys(struct tt_tagreport *r, const struct tt_sys_key *key,
			 __u64 count)
{
	struct tt_tagrow *row = find_row(r, &key->proc);

	if (!row)
		return 0;
	if (row->nr_sys == row->cap_sys) {
		struct tt_sys_count *n = grow(row->sys, &row->cap_sys,
					      sizeof(*n));

		if (!n)
			return -1;
		row->sys = n;
	}
	row->sys[row->nr_sys].nr = key->nr;
	row->sys[row->nr_sys++].count = count;
	return 0;
}

__u64 tt_tags_total(const __u64 *v)
{
	return tt_sum(v, TT_TAG_VALUES);
}

int tt_tags_distinct(const struct tt_tagrow *row)
{
	const struct tt_tags *t = &row->tags;
	int i, n = 0;

	for (i = 1; i < TT_TAG_VALUES; i++)
		n += t->untag[i] || t->fault[i];
	return n + row->nr_wide;
}

static int by_activity(const void *a, const void *b)
{
	const struct tt_tagrow *x = a, *y = b;
	__u64 nx = x->untags + x->faults, ny = y->untags + y->faults;

	if (x->active != y->active)
		return x->active > y->active ? -1 : 1;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return tt_proc_order(x->pid, x->start_ns, y->pid, y->start_ns);
}

static int by_count(const void *a, const void *b)
{
	const struct tt_sys_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->nr - y->nr;
}

void tt_tagreport_sort(struct tt_tagreport *r)
{
	size_t i;

	if (r->nr)
		qsort(r->rows, r->nr, sizeof(*r->rows), by_activity);
	r->by_proc = false;
	for (i = 0; i < r->nr; i++) {
		if (r->rows[i].nr_sys)
			qsort(r->rows[i].sys, r->rows[i].nr_sys,
			      sizeof(*r->rows[i].sys), by_count);
		sort_wide(&r->rows[i]);
		if (r->rows[i].nr_locs)
			qsort(r->rows[i].locs, r->rows[i].nr_locs,
			      sizeof(*r->rows[i].locs), by_loc_count);
	}
}

void tt_tagreport_clear(struct tt_tagreport *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->rows[i].sys);
		free(r->rows[i].wide);
		free(r->rows[i].locs);
	}
	r->locs_full = 0;
	r->nr = 0;
	r->overflow = 0;
	r->by_proc = false;
}

void tt_tagreport_free(struct tt_tagreport *r)
{
	tt_tagreport_clear(r);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* One "TAG UNTAG FAULT" cell, four a line; the header before the first. */
static void text_cell(FILE *out, int *cells, const enum tt_source *src,
		      bool guessed, __u32 tag, __u64 untag, __u64 fault)
{
	if (!*cells)
		fputs("  TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT\n",
		      out);
	fprintf(out, "%s%5u ", *cells % 4 ? " " : "", tag);
	tt_count_text(out, 6, src[TT_EV_UNTAG] != TT_SRC_NONE, false, untag);
	fputc(' ', out);
	tt_count_text(out, 5, src[TT_EV_FAULT] != TT_SRC_NONE, guessed, fault);
	if (++*cells % 4 == 0)
		fputc('\n', out);
}

/* Tags with any count, the dense array's then the wide ones, by value. */
static void text_tags(FILE *out, const struct tt_tagrow *row,
		      const enum tt_source *src, bool guessed)
{
	const struct tt_tags *t = &row->tags;
	int cells = 0;
	size_t i;

	for (i = 0; i < TT_TAG_VALUES; i++)
		if (t->untag[i] || t->fault[i])
			text_cell(out, &cells, src, guessed, i, t->untag[i],
				  t->fault[i]);
	for (i = 0; i < row->nr_wide; i++)
		text_cell(out, &cells, src, guessed, row->wide[i].tag,
			  row->wide[i].untag, row->wide[i].fault);
	if (cells % 4)
		fputc('\n', out);
}

/* "  untags by system call: write 200, uname 100", wrapped at 80 columns. */
static void text_syscalls(FILE *out, const struct tt_tagrow *row)
{
	int col = 0;
	size_t i;

	if (!row->nr_sys)
		return;
	col = fprintf(out, "  untags by system call:");
	for (i = 0; i < row->nr_sys; i++) {
		char buf[32], cell[64];
		const char *name = tt_syscall_name(row->sys[i].nr, buf,
						   sizeof(buf));
		int len = snprintf(cell, sizeof(cell), " %s %llu%s", name,
				   (unsigned long long)row->sys[i].count,
				   i + 1 < row->nr_sys ? "," : "");

		if (col + len > TEXT_WIDTH) {
			fputs("\n   ", out);
			col = 3;
		}
		col += fprintf(out, "%s", cell);
	}
	fputc('\n', out);
}

const struct tt_uloc *tt_tagreport_locate(const struct tt_tagreport *r,
					  const struct tt_tagrow *row,
					  const struct tt_loc_count *l,
					  struct tt_uloc *loc)
{
	return r->locate && r->locate(r->locate_ctx, row->gone ? 0 : row->pid,
				      &l->f, loc) ? loc : NULL;
}

/* "  where: 12 gp at helper+0xaa (tagalloc)", the busiest places first. */
static void text_locs(FILE *out, const struct tt_tagreport *r,
		      const struct tt_tagrow *row)
{
	char buf[TT_USYM_TEXT_SYM + TT_NAME_LEN + 64];
	struct tt_uloc loc;
	size_t i;

	for (i = 0; i < row->nr_locs && i < TT_TEXT_LOCS; i++) {
		tt_uloc_text(&row->locs[i].f,
			     tt_tagreport_locate(r, row, &row->locs[i], &loc),
			     buf, sizeof(buf));
		fprintf(out, "%s%llu %s at %s\n", i ? "         " : "  where: ",
			(unsigned long long)row->locs[i].count,
			tt_event_name(row->locs[i].kind), buf);
	}
	if (row->nr_locs > TT_TEXT_LOCS)
		fprintf(out, "         (%zu more places)\n",
			row->nr_locs - TT_TEXT_LOCS);
}

void tt_tags_text(FILE *out, const struct tt_tagreport *r,
		  const enum tt_source *src, size_t max_rows)
{
	bool untags = src[TT_EV_UNTAG] != TT_SRC_NONE;
	bool faults = src[TT_EV_FAULT] != TT_SRC_NONE;
	bool guessed = faults && r->fault_tags_guessed;
	size_t i;

	if (guessed)
		tt_guess_legend(out);
	if (r->overflow)
		fprintf(out, "(%llu tag values past %d not counted: the wide tag map is full)\n",
			(unsigned long long)r->overflow, TT_TAG_VALUES - 1);
	if (r->locs_full)
		fprintf(out, "(%llu tagged faults and #GPs not counted by place: the location map is full)\n",
			(unsigned long long)r->locs_full);
	for (i = 0; i < r->nr && i < max_rows; i++) {
		const struct tt_tagrow *row = &r->rows[i];
		char comm[TT_COMM_LEN];

		fprintf(out, "PID %u %s  %s %d bits%s\n", row->pid,
			tt_comm_text(row->comm, comm),
			tt_mode_name(row->mode), row->tag_bits,
			row->gone ? " (exited)" : "");
		fputs("  ", out);
		tt_count_text(out, 0, untags, false, row->untags);
		fputs(" untags, ", out);
		tt_count_text(out, 0, faults, false, row->faults);
		fputs(" faults (", out);
		tt_count_text(out, 0, faults, guessed, row->tagged_faults);
		fputs(" with a tag); ", out);
		tt_count_text(out, 0, true, guessed, tt_tags_distinct(row));
		fputs(" distinct tags\n", out);
		text_tags(out, row, src, guessed);
		if (untags)
			text_syscalls(out, row);
		text_locs(out, r, row);
	}
	if (r->nr > max_rows)
		fprintf(out, "(%zu more)\n", r->nr - max_rows);
}

static void json_array(struct json *j, const char *key, const __u64 *v)
{
	int i;

	json_key(j, key);
	fputc('[', j->out);
	for (i = 0; i < TT_TAG_VALUES; i++)
		fprintf(j->out, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	fputc(']', j->out);
}

/*
 * Tag values past the arrays (LAM_U48): [{"tag":N,"untags":..,"faults":..}],
 * only for a process that has any, by value.
 */
static void json_wide(struct json *j, const struct tt_tagrow *row,
		      bool untags, bool faults, bool guessed)
{
	size_t i;

	if (!row->nr_wide)
		return;
	json_key(j, "wide_tags");
	fputc('[', j->out);
	for (i = 0; i < row->nr_wide; i++) {
		struct json w;

		if (i)
			fputc(',', j->out);
		json_begin(&w, j->out);
		json_kuint(&w, "tag", row->wide[i].tag);
		if (untags)
			json_kuint(&w, "untags", row->wide[i].untag);
		if (faults)
			json_kuint(&w, TT_GUESSED(guessed, "faults"),
				   row->wide[i].fault);
		json_end(&w);
	}
	fputc(']', j->out);
}

static void json_syscalls(struct json *j, const struct tt_tagrow *row)
{
	size_t i;

	json_key(j, "syscalls");
	fputc('[', j->out);
	for (i = 0; i < row->nr_sys; i++) {
		char buf[32];
		struct json s;

		if (i)
			fputc(',', j->out);
		json_begin(&s, j->out);
		json_kint(&s, "nr", row->sys[i].nr);
		json_kstr(&s, "name",
			  tt_syscall_name(row->sys[i].nr, buf, sizeof(buf)));
		json_kuint(&s, "untags", row->sys[i].count);
		json_end(&s);
	}
	fputc(']', j->out);
}

/*
 * [{"event":"gp","count":12,"file":...,"sym":...}], busiest first, only
 * for a process that has any: each place with trace's frame members (no
 * ip: the offset in the file says where, the same in every process that
 * maps it).
 */
static void json_locs(struct json *j, const struct tt_tagreport *r,
		      const struct tt_tagrow *row)
{
	const struct tt_uloc *lp;
	struct tt_uloc loc;
	size_t i;

	if (!row->nr_locs)
		return;
	json_key(j, "locations");
	fputc('[', j->out);
	for (i = 0; i < row->nr_locs; i++) {
		const struct tt_loc_count *l = &row->locs[i];
		struct json o;

		if (i)
			fputc(',', j->out);
		json_begin(&o, j->out);
		json_kstr(&o, "event", tt_event_name(l->kind));
		json_kuint(&o, "count", l->count);
		lp = tt_tagreport_locate(r, row, l, &loc);
		if (!lp || !lp->file)
			json_khex(&o, "ip", l->f.ip);
		if (lp) {
			if (lp->file)
				json_kstr(&o, "file", lp->file);
			if (lp->build_id && *lp->build_id)
				json_kstr(&o, "build_id", lp->build_id);
			if (lp->file)
				json_khex(&o, "file_offset", lp->file_off);
			if (lp->sym) {
				json_kstr(&o, "sym", lp->sym);
				json_kuint(&o, "sym_offset", lp->off);
			} else {
				json_kstr(&o, "no_sym", lp->why);
			}
		}
		json_end(&o);
	}
	fputc(']', j->out);
}

void tt_tags_json(FILE *out, const struct tt_tagreport *r,
		  const enum tt_source *src, __u64 ts_ns, double interval,
		  __u64 uncounted)
{
	bool untags = src[TT_EV_UNTAG] != TT_SRC_NONE;
	bool faults = src[TT_EV_FAULT] != TT_SRC_NONE;
	bool guessed = faults && r->fault_tags_guessed;
	struct json j;
	size_t i;

	tt_json_report_begin(&j, out, ts_ns, interval, uncounted, src,
			     TT_TAGS_EVENTS, r->fault_tags_guessed);
	/* Only when some were lost: a LAM_U57 or UAI report is unchanged. */
	if (r->overflow)
		json_kuint(&j, "tag_overflow", r->overflow);
	if (r->locs_full)
		json_kuint(&j, "locations_overflow", r->locs_full);
	json_key(&j, "processes");
	fputc('[', out);
	for (i = 0; i < r->nr; i++) {
		const struct tt_tagrow *row = &r->rows[i];
		struct json p;

		if (i)
			fputc(',', out);
		tt_json_process(&p, out, row->pid, row->start_ns, row->comm,
				row->mode, row->tag_bits);
		json_kbool(&p, "exited", row->gone);
		if (untags)
			json_kuint(&p, "untags", row->untags);
		if (faults) {
			json_kuint(&p, "faults", row->faults);
			json_kuint(&p, TT_GUESSED(guessed, "tagged_faults"),
				   row->tagged_faults);
		}
		json_kint(&p, TT_GUESSED(guessed, "distinct_tags"),
			  tt_tags_distinct(row));
		if (untags)
			json_array(&p, "untag_tags", row->tags.untag);
		if (faults)
			json_array(&p, TT_GUESSED(guessed, "fault_tags"),
				   row->tags.fault);
		json_wide(&p, row, untags, faults, guessed);
		if (untags)
			json_syscalls(&p, row);
		json_locs(&p, r, row);
		json_end(&p);
	}
	fputc(']', out);
	json_end(&j);
	fputc('\n', out);
}
