// SPDX-License-Identifier: GPL-2.0
/* One ring buffer record as a text line or an NDJSON object. */
#include "json.h"
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

static void text_details(FILE *out, const struct tt_record *r,
			 const struct tt_fmt *fmt)
{
	char sym[128], sys[32];

	switch (r->kind) {
	case TT_EV_CTRL:
		fprintf(out, "%s %s", tt_if_name(r->ctrl.interface),
			tt_op_name(r->ctrl.op));
		if (r->ctrl.req_bits >= 0)
			fprintf(out, " req=%d", r->ctrl.req_bits);
		fprintf(out, " bits=%d@%d mode=%s ret=%lld",
			r->ctrl.granted_bits, r->ctrl.offset,
			tt_mode_name(r->ctrl.mode), (long long)r->ctrl.ret);
		break;
	case TT_EV_UNTAG:
		if (!caller_name(fmt, r->untag.caller, sym, sizeof(sym)))
			snprintf(sym, sizeof(sym), "0x%llx",
				 (unsigned long long)r->untag.caller);
		fprintf(out, "0x%llx -> 0x%llx %s %s tag=%u sys=%s",
			(unsigned long long)r->untag.tagged,
			(unsigned long long)r->untag.untagged, sym,
			tt_mode_name(r->untag.mode), r->untag.tag,
			tt_syscall_name(r->untag.syscall, sys, sizeof(sys)));
		break;
	case TT_EV_SWITCH:
		fprintf(out, "%s -> %s pid %d -> %d%s%s",
			tt_mode_name(r->sw.prev_mode),
			tt_mode_name(r->sw.next_mode), r->sw.prev_pid,
			r->sw.next_pid, r->sw.cr3_lam ? " cr3_lam" : "",
			r->sw.efer_written ? " efer" : "");
		break;
	case TT_EV_FAULT:
		fprintf(out, "0x%llx -> 0x%llx err=0x%llx ip=0x%llx %s",
			(unsigned long long)r->fault.address,
			(unsigned long long)r->fault.untagged,
			(unsigned long long)r->fault.error_code,
			(unsigned long long)r->fault.ip,
			tt_mode_name(r->fault.mode));
		if (r->fault.tag)
			fprintf(out, " tagged tag=%u ptr=0x%llx", r->fault.tag,
				(unsigned long long)r->fault.tagged);
		else
			fputs(" untagged", out);
		break;
	case TT_EV_GP:
		fprintf(out, "0x%llx ip=0x%llx %s",
			(unsigned long long)r->gp.address,
			(unsigned long long)r->gp.ip, tt_mode_name(r->gp.mode));
		break;
	}
}

void tt_record_text(FILE *out, const struct tt_record *r,
		    const struct tt_fmt *fmt)
{
	double t = r->ts_ns >= fmt->start_ns ?
		   (r->ts_ns - fmt->start_ns) / 1e9 : 0;

	fprintf(out, "%-11.6f %-3u %-7u %-7u %-15.*s %-6s ", t, r->cpu, r->pid,
		r->tid, TT_COMM_LEN, r->comm, tt_event_name(r->kind));
	text_details(out, r, fmt);
	fputc('\n', out);
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
