// SPDX-License-Identifier: GPL-2.0
/* One ring buffer record as a text line or an NDJSON object. */
#include "json.h"
#include "line.h"
#include "names.h"
#include "record.h"
#include "sysnames.h"

const struct tt_record *tt_record_decode(const void *data, size_t size)
{
	const struct tt_record *r = data;

	if (!data || size < sizeof(*r) || r->kind >= TT_EV_MAX)
		return NULL;
	return r;
}

/* The untag caller's name, or NULL when no resolver knows it. */
static const char *caller_name(const struct tt_fmt *fmt, __u64 addr,
			       char *buf, size_t len)
{
	return fmt->resolve ? fmt->resolve(fmt->resolve_ctx, addr, buf, len) :
			      NULL;
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
		break;
	}
}

/*
 * The columns of tt_record_header(), built by hand and written whole:
 * this runs for every record, and printf's format parsing and %f cost
 * more than the rest of the line.
 */
void tt_record_text(FILE *out, const struct tt_record *r,
		    const struct tt_fmt *fmt)
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
	tt_line_strn(&l, r->comm, TT_COMM_LEN);
	column_end(&l, col, 15);
	col = l.len;
	tt_line_str(&l, tt_event_name(r->kind));
	column_end(&l, col, 6);
	text_details(&l, r, fmt);
	tt_line_char(&l, '\n');
	fwrite(l.buf, 1, l.len, out);
}

/* The event's fields under the tracepoint's own field names. */
static void json_fields(struct json *j, const struct tt_record *r,
			const struct tt_fmt *fmt)
{
	char sym[128], sys[32];

	switch (r->kind) {
	case TT_EV_CTRL:
		json_kstr(j, "interface", tt_if_name(r->ctrl.interface));
		json_kstr(j, "op", tt_op_name(r->ctrl.op));
		json_kint(j, "req_bits", r->ctrl.req_bits);
		json_kint(j, "granted_bits", r->ctrl.granted_bits);
		json_kint(j, "offset", r->ctrl.offset);
		json_kstr(j, "mode", tt_mode_name(r->ctrl.mode));
		json_khex(j, "untag_mask", r->ctrl.untag_mask);
		json_kint(j, "ret", r->ctrl.ret);
		if (r->ctrl.reason != TT_REASON_UNKNOWN)
			json_kstr(j, "reason", tt_reason_name(r->ctrl.reason));
		break;
	case TT_EV_UNTAG:
		json_khex(j, "tagged", r->untag.tagged);
		json_khex(j, "untagged", r->untag.untagged);
		json_khex(j, "caller", r->untag.caller);
		if (caller_name(fmt, r->untag.caller, sym, sizeof(sym)))
			json_kstr(j, "caller_sym", sym);
		json_kstr(j, "mode", tt_mode_name(r->untag.mode));
		json_kuint(j, "tag", r->untag.tag);
		json_kint(j, "syscall_nr", r->untag.syscall);
		json_kstr(j, "syscall", tt_syscall_name(r->untag.syscall, sys,
							sizeof(sys)));
		break;
	case TT_EV_SWITCH:
		json_kuint(j, "prev_mm", r->sw.prev_mm);
		json_kuint(j, "next_mm", r->sw.next_mm);
		json_kint(j, "prev_pid", r->sw.prev_pid);
		json_kint(j, "next_pid", r->sw.next_pid);
		json_kstr(j, "prev_mode", tt_mode_name(r->sw.prev_mode));
		json_kstr(j, "next_mode", tt_mode_name(r->sw.next_mode));
		json_khex(j, "cr3_lam", r->sw.cr3_lam);
		json_kbool(j, "efer_written", r->sw.efer_written);
		break;
	case TT_EV_FAULT:
		json_khex(j, "address", r->fault.address);
		json_khex(j, "untagged", r->fault.untagged);
		json_khex(j, "error_code", r->fault.error_code);
		json_khex(j, "ip", r->fault.ip);
		json_kstr(j, "mode", tt_mode_name(r->fault.mode));
		json_kbool(j, "tagged", r->fault.tag != 0);
		json_kuint(j, "tag", r->fault.tag);
		if (r->fault.tag)
			json_khex(j, "tagged_ptr", r->fault.tagged);
		break;
	case TT_EV_GP:
		json_khex(j, "ip", r->gp.ip);
		json_khex(j, "address", r->gp.address);
		json_kstr(j, "mode", tt_mode_name(r->gp.mode));
		json_kstr(j, "trap", tt_trap_name(r->gp.trap));
		break;
	}
}

void tt_record_json(FILE *out, const struct tt_record *r,
		    const struct tt_fmt *fmt)
{
	struct json j;

	json_begin(&j, out);
	json_kuint(&j, "ts_ns", r->ts_ns);
	json_kuint(&j, "cpu", r->cpu);
	json_kuint(&j, "pid", r->pid);
	json_kuint(&j, "tid", r->tid);
	json_key(&j, "comm");
	json_str(out, r->comm, TT_COMM_LEN);
	json_kstr(&j, "event", tt_event_name(r->kind));
	json_fields(&j, r, fmt);
	json_end(&j);
	fputc('\n', out);
}
