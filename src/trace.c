// SPDX-License-Identifier: GPL-2.0
/* tagtrace trace: one line (or NDJSON object) per event from the ring buffer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "commands.h"
#include "ksyms.h"
#include "names.h"
#include "out.h"
#include "record.h"
#include "usym.h"

struct trace_ctx {
	const struct tt_env *env;
	struct tt_stop *stop;
	struct tt_fmt fmt;
	__u64 events;
	__u64 printed[TT_EV_MAX];	/* events by kind */
	__u64 bad;
	__u64 wakeups;		/* polls that BPF's wake-up ended */
	__u64 late_polls;	/* timeouts that found a wake-up's worth */
	bool draining;	/* the last drain: detached, so it ends */
	bool out_failed;	/* a write failed: format no more */
	int out_errno;		/* its errno, before libbpf's -EINTR */
};

/*
 * A failed write's errno, kept when it happened: the callback's STOP_DRAIN
 * (-EINTR) and libbpf overwrite errno before the flush.
 */
static int flush(const struct trace_ctx *t)
{
	return tt_out_flush(stdout, t->out_failed ? t->out_errno : 0);
}

/*
 * A negative return makes libbpf stop consuming, after this record: a
 * storm that outruns the printer never lets its drain end by itself.
 */
#define STOP_DRAIN	(-EINTR)
/*
 * BPF holds wake-ups back (wakeup_flags() in bpf/tagtrace.bpf.c): a
 * record that came without one waits at most this long.
 */
#define POLL_NS		100000000ULL
#define OUT_BUF		(64 * 1024)

static int on_record(void *ctx, void *data, size_t size)
{
	struct trace_ctx *t = ctx;
	struct tt_where w;
	const struct tt_record *r = tt_record_decode(data, size, &w);

	if (!r) {
		t->bad++;
	} else {
		t->events++;
		if (r->kind < TT_EV_MAX)
			t->printed[r->kind]++;
		if (t->env->json)
			tt_record_json(stdout, r, &w, &t->fmt);
		else
			tt_record_text(stdout, r, &w, &t->fmt);
	}
	/* A failed write (the 64 KiB buffer filled): tt_out_flush() says why. */
	if (ferror(stdout)) {
		if (!t->out_failed)
			t->out_errno = errno;
		t->out_failed = true;
		return STOP_DRAIN;
	}
	return !t->draining && tt_stop_due(t->stop) ? STOP_DRAIN : 0;
}

/*
 * Untag callers by name: BPF fills the syms map with the kernel's "%pS"
 * of each call site, once; /proc/kallsyms (slow to read) is loaded only if
 * a caller is missing there, the map being full.
 */
#define SYM_CACHE 64	/* direct-mapped: a storm has few call sites */

struct resolver {
	int syms_fd;
	bool kallsyms_tried;
	struct ksyms *ksyms;
	__u64 addr[SYM_CACHE];
	struct tt_sym name[SYM_CACHE];
};

static const char *resolve(void *ctx, __u64 addr, char *buf, size_t len)
{
	struct resolver *rs = ctx;
	unsigned int i = (addr ^ addr >> 6) % SYM_CACHE;
	struct tt_sym *sym = &rs->name[i];
	FILE *f;

	if (rs->addr[i] != addr &&
	    !bpf_map_lookup_elem(rs->syms_fd, &addr, sym)) {
		sym->name[TT_SYM_LEN - 1] = 0;
		sym->name[strcspn(sym->name, "/")] = 0; /* "+0xoff/0xsize" */
		rs->addr[i] = addr;
	}
	if (rs->addr[i] == addr)
		return sym->name;	/* the cached name, no copy */
	if (!rs->kallsyms_tried) {
		rs->kallsyms_tried = true;
		f = fopen("/proc/kallsyms", "r");
		rs->ksyms = f ? ksyms_load(f) : NULL;
		if (f)
			fclose(f);
		if (!rs->ksyms)
			fprintf(stderr, "tagtrace: no kernel symbols readable: untag callers stay addresses\n");
	}
	return rs->ksyms ? ksyms_format(rs->ksyms, addr, buf, len) : NULL;
}

/*
 * The totals, then each stream's: printed + dropped + missed is every
 * event of that kind the kernel produced, missed counting the skipped
 * runs of that kind's programs only (each at most one event; exactly one
 * for a tagged_addr event without -p or -c).
 */
static void summary(const struct tt_session *s, const struct tt_env *env,
		    const struct trace_ctx *t)
{
	__u64 missed[TT_EV_MAX], all = 0;
	int k;

	for (k = 0; k < TT_EV_MAX; k++) {
		missed[k] = (env->events & (1U << k)) ?
			    tt_session_missed_kind(s, k) : 0;
		all += missed[k];
	}
	fprintf(stderr, "tagtrace: %llu events, %llu dropped (ring buffer full), %llu missed (runs BPF skipped)\n",
		(unsigned long long)t->events,
		(unsigned long long)tt_session_stat(s, TT_STAT_DROPS),
		(unsigned long long)all);
	for (k = 0; k < TT_EV_MAX; k++)
		if (env->events & (1U << k))
			fprintf(stderr, "tagtrace: %s: %llu printed, %llu dropped, %llu missed\n",
				tt_event_name(k),
				(unsigned long long)t->printed[k],
				(unsigned long long)tt_session_stat(s, TT_STAT_DROPS_KIND + k),
				(unsigned long long)missed[k]);
}

int tt_trace_run(struct tt_session *s, const struct tt_env *env,
		 struct tt_stop *stop)
{
	static struct resolver rs;
	struct trace_ctx t = { .env = env, .stop = stop };
	struct ring_buffer *rb;
	int err = 0, out;

	rs.syms_fd = tt_session_syms_fd(s);
	t.fmt.locate_ctx = tt_session_usyms(s);
	if (!t.fmt.locate_ctx) {
		fprintf(stderr, "tagtrace: out of memory\n");
		return -1;
	}
	t.fmt.locate = tt_usyms_locate_ctx;
	t.fmt.resolve = resolve;
	t.fmt.resolve_ctx = &rs;
	rb = ring_buffer__new(tt_session_events_fd(s), on_record, &t, NULL);
	if (!rb) {
		fprintf(stderr, "tagtrace: cannot map the ring buffer: %s\n",
			strerror(errno));
		ksyms_free(rs.ksyms);
		tt_usyms_free(t.fmt.locate_ctx);
		return -1;
	}
	/* Times, and -d, count from the attach: events may predate us. */
	t.fmt.start_ns = s->attach_ns;
	t.fmt.fault_tags_guessed = !s->fault_pointer;
	t.fmt.no_tagging = s->no_tagging;
	t.fmt.la57 = s->la57;
	if (env->duration)
		tt_stop_set_deadline(stop, s->attach_ns +
					   (__u64)(env->duration * 1e9));
	if (env->duration)
		fprintf(stderr, "tagtrace: tracing for %g s; Ctrl-C to stop\n",
			env->duration);
	else
		fputs("tagtrace: tracing; Ctrl-C to stop\n", stderr);
	/*
	 * Records are written a batch at a time (flushed after each drain),
	 * not in the 4 KiB a pipe's st_blksize gives stdio. Before any output.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, OUT_BUF);
	if (!env->json)
		tt_record_header(stdout);
	out = flush(&t);
	while (!out && !tt_stop_due(stop)) {
		bool woken;

		err = tt_stop_wait(stop, ring_buffer__epoll_fd(rb),
				   tt_now_ns() + POLL_NS);
		woken = err > 0;
		t.wakeups += woken;
		if (err >= 0)
			err = ring_buffer__consume(rb);
		/*
		 * BPF wakes trace by two marks of unread records at most,
		 * and one in flight per CPU: a timeout that finds more lost
		 * a wake-up (counted for -v, whatever the clock does).
		 */
		if (!woken && err > 2 * (long)s->wakeup_records + s->nr_cpus &&
		    !tt_stop_due(stop))
			t.late_polls++;
		if (err < 0 && err != STOP_DRAIN) {
			fprintf(stderr, "tagtrace: ring buffer: %s\n",
				strerror(-err));
			break;
		}
		err = 0;
		out = flush(&t);
	}
	/*
	 * What was queued when the stop came was traced: print it before the
	 * totals. Detached first, so no storm can refill the buffer and the
	 * drain ends, and the drop count read after it is final: printed and
	 * dropped add up to every event the programs saw. Not when the
	 * output failed: the reader is gone (EPIPE, a normal end) or the
	 * write error is said and ends the run with status 1.
	 */
	tt_session_detach(s);
	t.draining = true;
	if (!out) {
		ring_buffer__consume(rb);
		out = flush(&t);
	}
	if (out < 0)
		err = out;
	summary(s, env, &t);
	if (env->verbose)
		fprintf(stderr, "tagtrace: woken %llu times; %llu timeouts found more than two wake-ups' worth (%u records) waiting\n",
			(unsigned long long)t.wakeups,
			(unsigned long long)t.late_polls, s->wakeup_records);
	if (t.bad)
		fprintf(stderr, "tagtrace: %llu malformed records skipped\n",
			(unsigned long long)t.bad);
	ring_buffer__free(rb);
	ksyms_free(rs.ksyms);
	tt_usyms_free(t.fmt.locate_ctx);
	return err;
}
