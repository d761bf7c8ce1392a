// SPDX-License-Identifier: GPL-2.0
/* tagtrace trace: one line (or NDJSON object) per event from the ring buffer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "record.h"

struct trace_ctx {
	const struct tt_env *env;
	struct tt_fmt fmt;
	__u64 events;
	__u64 bad;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct trace_ctx *t = ctx;
	const struct tt_record *r = tt_record_decode(data, size);

	if (!r) {
		t->bad++;
		return 0;
	}
	t->events++;
	if (t->env->json)
		tt_record_json(stdout, r, &t->fmt);
	else
		tt_record_text(stdout, r, &t->fmt);
	return 0;
}

/* Kernel symbols for untag callers, when untag events are shown. */
static struct ksyms *load_ksyms(const struct tt_env *env)
{
	struct ksyms *ks;
	FILE *f;

	if (!(env->events & (1U << TT_EV_UNTAG)))
		return NULL;
	f = fopen("/proc/kallsyms", "r");
	if (!f) {
		fprintf(stderr, "tagtrace: no /proc/kallsyms (%s): untag callers stay addresses\n",
			strerror(errno));
		return NULL;
	}
	ks = ksyms_load(f);
	fclose(f);
	if (!ks)
		fprintf(stderr, "tagtrace: no kernel symbols readable: untag callers stay addresses\n");
	return ks;
}

int tt_trace_run(struct tt_session *s, const struct tt_env *env)
{
	struct trace_ctx t = { .env = env };
	struct ksyms *ks = load_ksyms(env);
	struct ring_buffer *rb;
	__u64 deadline = 0;
	int err = 0;

	t.fmt.ksyms = ks;
	rb = ring_buffer__new(tt_session_events_fd(s), on_record, &t, NULL);
	if (!rb) {
		fprintf(stderr, "tagtrace: cannot map the ring buffer: %s\n",
			strerror(errno));
		ksyms_free(ks);
		return -1;
	}
	/* Times count from the attach: the first events may predate us. */
	t.fmt.start_ns = s->attach_ns;
	if (env->duration)
		deadline = tt_now_ns() + (__u64)(env->duration * 1e9);
	if (env->duration)
		fprintf(stderr, "tagtrace: tracing for %g s; Ctrl-C to stop\n",
			env->duration);
	else
		fputs("tagtrace: tracing; Ctrl-C to stop\n", stderr);
	if (!env->json)
		tt_record_header(stdout);
	fflush(stdout);
	while (!tt_exiting && (!deadline || tt_now_ns() < deadline)) {
		err = ring_buffer__poll(rb, 100);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0) {
			fprintf(stderr, "tagtrace: ring buffer poll: %s\n",
				strerror(-err));
			break;
		}
		err = 0;
		fflush(stdout);
	}
	/* What is still queued was traced: print it before the totals. */
	ring_buffer__consume(rb);
	fflush(stdout);
	fprintf(stderr, "tagtrace: %llu events, %llu dropped (ring buffer full)\n",
		(unsigned long long)t.events,
		(unsigned long long)tt_session_stat(s, TT_STAT_DROPS));
	if (t.bad)
		fprintf(stderr, "tagtrace: %llu malformed records skipped\n",
			(unsigned long long)t.bad);
	ring_buffer__free(rb);
	ksyms_free(ks);
	return err;
}
