// SPDX-License-Identifier: GPL-2.0
/* One ring buffer record as a text line or an NDJSON object. */
#include "json.h"
#include "line.h"
#include "names.h"
#include "record.h"
#include "sysnames.h"

const struct tt_record *tt_record_decode(const void *data, size_t size,
					 struct tt_where *w)
{
	const struct tt_record *r = data;
	size_t tail;

	if (!data || size < sizeof(*r) || r->kind >= TT_EV_MAX)
		return NULL;
	tail = size - sizeof(*r);
	if (!w)
		return r;
	/* Faults and #GPs carry frames; a tail of other kinds is padding. */
	w->f = (const struct tt_frame *)(r + 1);
	w->n = 0;
	if (r->kind == TT_EV_FAULT || r->kind == TT_EV_GP)
		w->n = tail / sizeof(struct tt_frame);
	if (w->n > TT_STACK_MAX)
		w->n = TT_STACK_MAX;
	return r;
}

/* The untag caller's name, or NULL when no resolver knows it. */
static const char *caller_name(const struct tt_fmt *fmt, __u64 addr,
			       char *buf, size_t len)
{
	return fmt->resolve ? fmt->resolve(fmt->resolve_ctx, addr, buf, len) :
			      NULL;
}

/* Bits hi..lo, as the kernel's GENMASK_ULL(). */
#define BITS(hi, lo)	((~0ULL >> (63 - (hi))) & ~((1ULL << (lo)) - 1))

__u64 tt_gp_outside(const struct tt_record *r, bool la57)
{
	int top = la57 ? 56 : 47;	/* the lowest bit above the address */
	__u64 ignored = 0;

	switch (r->gp.mode) {
	case TT_MODE_LAM_U57:
		ignored = BITS(62, 57);
		break;
	case TT_MODE_UAI:
		if (r->gp.trap != 12)
			ignored = BITS(62, 57);
		break;
	case TT_MODE_LAM_U48:
		ignored = BITS(62, 48);
		top = 47;	/* bit 47 must equal bit 63, at any paging depth */
		break;
	}
	return r->gp.address & ~ignored & BITS(63, top);
}

void tt_record_header(FILE *out)
{
	fprintf(out, "%-11s %-3s %-7s %-7s %-15s %-6s %s\n", "TIME(s)", "CPU",
		"PID", "TID", "COMM", "EVENT", "DETAILS");
}

/* A column of the text line: the field, padded to width, and a space. */
static inline void column_end(struct tt_line *l, size_t start, size_t width)
{
	tt_line_pad(l, start + width + 1);
}

/* Text, then a value: the pieces of the DETAILS column. */
static inline void put_str(struct tt_line *l, const char *before,
			   const char *s)
{
	tt_line_str(l, before);
	tt_line_str(l, s);
}

static inline void put_int(struct tt_line *l, const char *before, __s64 v)
{
	tt_line_str(l, before);
	tt_line_s64(l, v);
}

static inline void put_hex(struct tt_line *l, const char *before, __u64 v)
{
	tt_line_str(l, before);
	tt_line_hex(l, v);
}

static void text_details(struct tt_line *l, const struct tt_record *r,
			 const struct tt_fmt *fmt)
{
	char sym[128], sys[32];
	const char *caller, *refused;

	switch (r->kind) {
	case TT_EV_CTRL:
		put_str(l, "", tt_if_name(r->ctrl.interface));
		put_str(l, " ", tt_op_name(r->ctrl.op));
		if (r->ctrl.req_bits >= 0)
			put_int(l, " req=", r->ctrl.req_bits);
		put_int(l, " bits=", r->ctrl.granted_bits);
		put_int(l, "@", r->ctrl.offset);
		put_str(l, " mode=", tt_mode_name(r->ctrl.mode));
		put_int(l, " ret=", r->ctrl.ret);
		refused = tt_reason_text(r->ctrl.reason);
		if (!refused && r->ctrl.reason == TT_REASON_UNKNOWN &&
		    r->ctrl.op == TT_OP_ENABLE && r->ctrl.ret < 0)
			refused = tt_no_tagging_text(fmt->no_tagging);
		if (refused)
			put_str(l, " refused: ", refused);
		break;
	case TT_EV_UNTAG:
		put_hex(l, "", r->untag.tagged);
		put_hex(l, " -> ", r->untag.untagged);
		caller = caller_name(fmt, r->untag.caller, sym, sizeof(sym));
		if (caller)
			put_str(l, " ", caller);
		else
			put_hex(l, " ", r->untag.caller);
		put_str(l, " ", tt_mode_name(r->untag.mode));
		put_int(l, " tag=", r->untag.tag);
		put_str(l, " sys=", tt_syscall_name(r->untag.syscall, sys,
						    sizeof(sys)));
		break;
	case TT_EV_SWITCH:
		put_str(l, "", tt_mode_name(r->sw.prev_mode));
		put_str(l, " -> ", tt_mode_name(r->sw.next_mode));
		put_int(l, " pid ", r->sw.prev_pid);
		put_int(l, " -> ", r->sw.next_pid);
		if (r->sw.cr3_lam)
			tt_line_str(l, " cr3_lam");
		if (r->sw.efer_written)
			tt_line_str(l, " efer");
		break;
	case TT_EV_FAULT:
		put_hex(l, "", r->fault.address);
		put_hex(l, " -> ", r->fault.untagged);
		put_hex(l, " err=", r->fault.error_code);
		put_hex(l, " ip=", r->fault.ip);
		put_str(l, " ", tt_mode_name(r->fault.mode));
		if (fmt->fault_tags_guessed)
			tt_line_str(l, " guessed");
		if (r->fault.tag) {
			put_int(l, " tagged tag=", r->fault.tag);
			put_hex(l, " ptr=", r->fault.tagged);
		} else {
			tt_line_str(l, " untagged");
		}
		break;
	case TT_EV_GP:
		put_hex(l, "", r->gp.address);
		put_hex(l, " ip=", r->gp.ip);
		put_str(l, " ", tt_mode_name(r->gp.mode));
		put_str(l, " trap=", tt_trap_name(r->gp.trap));
		put_hex(l, " outside=", tt_gp_outside(r, fmt->la57));
		break;
	}
}

/* Names are cut here in a frame: a line holds the longest path whole. */
#define FRAME_SYM_MAX	256

/*
 * " at f+0x1a (file)" for frame 0, then " <- caller+0x9 (file)" for each
 * caller: a function and the file's last name; the IP and the offset in
 * the file where no symbol covers it; the IP alone outside any file
 * (kernel text by its kernel symbol).
 */
static void text_frame(struct tt_line *l, __u32 pid, const struct tt_frame *f,
		       const struct tt_fmt *fmt)
{
	char buf[TT_USYM_TEXT_SYM + TT_NAME_LEN + 64];
	struct tt_uloc loc;
	const char *name;

	if ((__s64)f->ip < 0) {
		name = caller_name(fmt, f->ip, buf, sizeof(buf));
		if (name) {
			tt_line_strn(l, name, FRAME_SYM_MAX);
			return;
		}
	}
	tt_uloc_text(f, fmt->locate && fmt->locate(fmt->locate_ctx, pid, f, &loc) ?
			&loc : NULL, buf, sizeof(buf));
	tt_line_str(l, buf);
}

static void text_frames(FILE *out, __u32 pid, const struct tt_where *w,
			const struct tt_fmt *fmt)
{
	struct tt_line l;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		tt_line_init(&l);
		tt_line_str(&l, i ? " <- " : " at ");
		text_frame(&l, pid, &w->f[i], fmt);
		fwrite(l.buf, 1, l.len, out);
	}
}

/* comm as tt_comm_text() gives it, without the copy; unterminated too. */
static inline void tt_line_comm(struct tt_line *l, const char *comm)
{
	int i;

	for (i = 0; i < TT_COMM_LEN && comm[i]; i++)
		tt_line_char(l, comm[i] >= 0x20 && comm[i] < 0x7f ?
				comm[i] : '?');
}

/*
 * The columns of tt_record_header(), built by hand and written whole:
 * this runs for every record, and printf's format parsing and %f cost
 * more than the rest of the line.
 */
void tt_record_text(FILE *out, const struct tt_record *r,
		    const struct tt_where *w, const struct tt_fmt *fmt)
{
	struct tt_line l;
	size_t col;

	tt_line_init(&l);
	tt_line_seconds(&l, r->ts_ns >= fmt->start_ns ?
			    r->ts_ns - fmt->start_ns : 0);
	column_end(&l, 0, 11);
	col = l.len;
	tt_line_u64(&l, r->cpu);
	column_end(&l, col, 3);
	col = l.len;
	tt_line_u64(&l, r->pid);
	column_end(&l, col, 7);
	col = l.len;
	tt_line_u64(&l, r->tid);
	column_end(&l, col, 7);
	col = l.len;
	tt_line_comm(&l, r->comm);
	column_end(&l, col, 15);
	col = l.len;
	tt_line_str(&l, tt_event_name(r->kind));
	column_end(&l, col, 6);
	text_details(&l, r, fmt);
	if (w && w->n) {
		fwrite(l.buf, 1, l.len, out);
		text_frames(out, r->pid, w, fmt);
		tt_line_init(&l);
	}
	tt_line_char(&l, '\n');
	fwrite(l.buf, 1, l.len, out);
}

/*
 * JSON members appended to the record's line: ,"key":value. Macros, so
 * that ,"key": is one literal whose length the compiler knows.
 */
#define J_KEY(l, key)	tt_line_put(l, ",\"" key "\":", sizeof(key) + 3)

#define J_UINT(l, key, v)	do {					\
	J_KEY(l, key);							\
	tt_line_u64(l, v);						\
} while (0)

#define J_INT(l, key, v)	do {					\
	J_KEY(l, key);							\
	tt_line_s64(l, v);						\
} while (0)

#define J_HEX(l, key, v)	do {					\
	J_KEY(l, key);							\
	tt_line_json_hex(l, v);						\
} while (0)

/* One of our own names (modes, events, system calls): nothing to escape. */
#define J_NAME(l, key, s)	do {					\
	J_KEY(l, key);							\
	tt_line_char(l, '"');						\
	tt_line_str(l, s);						\
	tt_line_char(l, '"');						\
} while (0)

#define J_BOOL(l, key, v)	do {					\
	J_KEY(l, key);							\
	tt_line_json_bool(l, v);					\
} while (0)

/* The event's fields under the tracepoint's own field names. */
static void json_fields(struct tt_line *j, const struct tt_record *r,
			const struct tt_fmt *fmt)
{
	char sym[128], sys[32];
	const char *caller;

	switch (r->kind) {
	case TT_EV_CTRL:
		J_NAME(j, "interface", tt_if_name(r->ctrl.interface));
		J_NAME(j, "op", tt_op_name(r->ctrl.op));
		J_INT(j, "req_bits", r->ctrl.req_bits);
		J_INT(j, "granted_bits", r->ctrl.granted_bits);
		J_INT(j, "offset", r->ctrl.offset);
		J_NAME(j, "mode", tt_mode_name(r->ctrl.mode));
		J_HEX(j, "untag_mask", r->ctrl.untag_mask);
		J_INT(j, "ret", r->ctrl.ret);
		if (r->ctrl.reason != TT_REASON_UNKNOWN)
			J_NAME(j, "reason", tt_reason_name(r->ctrl.reason));
		else if (r->ctrl.op == TT_OP_ENABLE && r->ctrl.ret < 0 &&
			 tt_no_tagging_name(fmt->no_tagging))
			J_NAME(j, "reason", tt_no_tagging_name(fmt->no_tagging));
		break;
	case TT_EV_UNTAG:
		J_HEX(j, "tagged", r->untag.tagged);
		J_HEX(j, "untagged", r->untag.untagged);
		J_HEX(j, "caller", r->untag.caller);
		/* The resolver may return its own copy, not fill sym. */
		caller = caller_name(fmt, r->untag.caller, sym, sizeof(sym));
		if (caller) {
			J_KEY(j, "caller_sym");
			tt_line_json_str(j, caller, TT_SYM_LEN * 2);
		}
		J_NAME(j, "mode", tt_mode_name(r->untag.mode));
		J_UINT(j, "tag", r->untag.tag);
		J_INT(j, "syscall_nr", r->untag.syscall);
		J_NAME(j, "syscall", tt_syscall_name(r->untag.syscall, sys,
						   sizeof(sys)));
		break;
	case TT_EV_SWITCH:
		J_UINT(j, "prev_mm", r->sw.prev_mm);
		J_UINT(j, "next_mm", r->sw.next_mm);
		J_INT(j, "prev_pid", r->sw.prev_pid);
		J_INT(j, "next_pid", r->sw.next_pid);
		J_NAME(j, "prev_mode", tt_mode_name(r->sw.prev_mode));
		J_NAME(j, "next_mode", tt_mode_name(r->sw.next_mode));
		J_HEX(j, "cr3_lam", r->sw.cr3_lam);
		J_BOOL(j, "efer_written", r->sw.efer_written);
		break;
	case TT_EV_FAULT:
		J_HEX(j, "address", r->fault.address);
		J_HEX(j, "untagged", r->fault.untagged);
		J_HEX(j, "error_code", r->fault.error_code);
		J_HEX(j, "ip", r->fault.ip);
		J_NAME(j, "mode", tt_mode_name(r->fault.mode));
		if (fmt->fault_tags_guessed) {
			J_BOOL(j, "guessed_tagged", r->fault.tag != 0);
			J_UINT(j, "guessed_tag", r->fault.tag);
			if (r->fault.tag)
				J_HEX(j, "guessed_tagged_ptr", r->fault.tagged);
			break;
		}
		J_BOOL(j, "tagged", r->fault.tag != 0);
		J_UINT(j, "tag", r->fault.tag);
		if (r->fault.tag)
			J_HEX(j, "tagged_ptr", r->fault.tagged);
		break;
	case TT_EV_GP:
		J_HEX(j, "ip", r->gp.ip);
		J_HEX(j, "address", r->gp.address);
		J_NAME(j, "mode", tt_mode_name(r->gp.mode));
		J_NAME(j, "trap", tt_trap_name(r->gp.trap));
		J_HEX(j, "outside", tt_gp_outside(r, fmt->la57));
		break;
	}
}

/*
 * A frame as an object: ip; the file, its build id and the offset in it;
 * the function and the offset in it, or why there is none. The path and
 * the name are cut to fit one line buffer.
 */
static void json_frame(struct tt_line *l, __u32 pid, const struct tt_frame *f,
		       const struct tt_fmt *fmt)
{
	struct tt_uloc loc;
	const char *name;
	char sym[128];

	tt_line_put(l, "{\"ip\":", 6);
	tt_line_json_hex(l, f->ip);
	if ((__s64)f->ip < 0) {
		name = caller_name(fmt, f->ip, sym, sizeof(sym));
		if (name) {
			J_KEY(l, "kernel_sym");
			tt_line_json_str(l, name, FRAME_SYM_MAX);
		}
	} else if (fmt->locate &&
		   fmt->locate(fmt->locate_ctx, pid, f, &loc)) {
		if (loc.file) {
			J_KEY(l, "file");
			tt_line_json_str(l, loc.file, TT_NAME_LEN * 4);
		}
		if (loc.build_id && *loc.build_id)
			J_NAME(l, "build_id", loc.build_id);
		if (loc.file)
			J_HEX(l, "file_offset", loc.file_off);
		if (loc.sym) {
			J_KEY(l, "sym");
			tt_line_json_str(l, loc.sym, FRAME_SYM_MAX);
			J_UINT(l, "sym_offset", loc.off);
		} else {
			J_NAME(l, "no_sym", loc.why);
		}
	}
	tt_line_char(l, '}');
}

/* "where": frame 0; with callers, "stack": every frame, frame 0 first. */
static void json_frames(FILE *out, __u32 pid, const struct tt_where *w,
			const struct tt_fmt *fmt)
{
	struct tt_line l;
	unsigned int i;

	tt_line_init(&l);
	J_KEY(&l, "where");
	json_frame(&l, pid, &w->f[0], fmt);
	fwrite(l.buf, 1, l.len, out);
	if (w->n < 2)
		return;
	for (i = 0; i < w->n; i++) {
		tt_line_init(&l);
		if (i) {
			tt_line_char(&l, ',');
		} else {
			J_KEY(&l, "stack");
			tt_line_char(&l, '[');
		}
		json_frame(&l, pid, &w->f[i], fmt);
		fwrite(l.buf, 1, l.len, out);
	}
	fputc(']', out);
}

/*
 * Built in one buffer and written once, as the text line is: through
 * stdio a member at a time, JSON cost four times the text.
 * The longest (an untag with a 128-byte caller name and a comm of 16
 * control bytes, escaped) takes under 600 bytes of TT_LINE_MAX.
 */
void tt_record_json(FILE *out, const struct tt_record *r,
		    const struct tt_where *w, const struct tt_fmt *fmt)
{
	struct tt_line l;

	tt_line_init(&l);
	tt_line_put(&l, "{\"ts_ns\":", 9);
	tt_line_u64(&l, r->ts_ns);
	J_UINT(&l, "cpu", r->cpu);
	J_UINT(&l, "pid", r->pid);
	J_UINT(&l, "tid", r->tid);
	J_KEY(&l, "comm");
	tt_line_json_str(&l, r->comm, TT_COMM_LEN);
	J_NAME(&l, "event", tt_event_name(r->kind));
	json_fields(&l, r, fmt);
	if (w && w->n) {
		fwrite(l.buf, 1, l.len, out);
		json_frames(out, r->pid, w, fmt);
		tt_line_init(&l);
	}
	tt_line_put(&l, "}\n", 2);
	fwrite(l.buf, 1, l.len, out);
}
