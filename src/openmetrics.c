// SPDX-License-Identifier: GPL-2.0
/*
 * top --openmetrics: the OpenMetrics text format (the node_exporter
 * textfile collector reads it). Metric names and labels are documented in
 * tagtrace(8); counters are cumulative since tagtrace started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names.h"
#include "histfmt.h"
#include "json.h"
#include "openmetrics.h"
#include "usym.h"
#include "tagfmt.h"

static const struct {
	const char *name;
	const char *help;
} counters[TT_EV_MAX] = {
	[TT_EV_CTRL]	= { "tagtrace_ctrl_calls",
			    "Tagging prctl/arch_prctl calls and exec resets" },
	[TT_EV_UNTAG]	= { "tagtrace_untags",
			    "Tags the kernel stripped from user pointers" },
	[TT_EV_SWITCH]	= { "tagtrace_mode_switches",
			    "CPU tagging mode changes switching away from the process" },
	[TT_EV_FAULT]	= { "tagtrace_tagged_faults",
			    "Page faults at tagged addresses or in tagged processes" },
	[TT_EV_GP]	= { "tagtrace_tagged_gps",
			    "General protection faults from tagged pointers" },
};

/*
 * A label value: backslash, double quote and newline escaped, and bytes
 * that are not UTF-8 (a comm cut inside a character) as U+FFFD, which a
 * Prometheus parser would otherwise reject with the whole file.
 */
static void label(FILE *out, const char *name, const char *value, bool first)
{
	const unsigned char *v = (const unsigned char *)value;
	size_t n = strlen(value), i, len;

	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (i = 0; i < n; i++) {
		if (v[i] == '\\' || v[i] == '"') {
			fprintf(out, "\\%c", v[i]);
		} else if (v[i] == '\n') {
			fputs("\\n", out);
		} else if (v[i] < 0x80) {
			fputc(v[i], out);
		} else if ((len = tt_utf8_len(v + i, n - i))) {
			fwrite(v + i, 1, len, out);
			i += len - 1;
		} else {
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
		}
	}
	fputc('"', out);
}

/*
 * A process is its pid and start time, as in BPF's key, and nothing else:
 * a reused PID must not give a second sample with the same labels, which
 * would void the whole exposition, and a label that changes in the
 * process's life (its name at exec, its mode) would end its series and
 * start another. Those are in tagtrace_process_info.
 */
static void proc_labels(FILE *out, __u32 tgid, __u64 start_ns)
{
	char pid[16], start[24];

	snprintf(pid, sizeof(pid), "%u", tgid);
	snprintf(start, sizeof(start), "%llu", (unsigned long long)start_ns);
	fputc('{', out);
	label(out, "pid", pid, true);
	label(out, "start_ns", start, false);
}

/*
 * The faults of tagtrace_tagged_faults whose pointer carried a tag: a
 * family of its own where the tags are guessed, so that no query of the
 * exact one ever gets a guess.
 */
static void faults_with_tag(FILE *out, const struct tt_snapshot *procs)
{
	const char *name = "tagtrace_faults_with_tag";
	size_t i;

	if (procs->fault_tags_guessed) {
		name = "tagtrace_faults_with_guessed_tag";
		fprintf(out, "# TYPE %s counter\n"
			"# HELP %s Page faults whose pointer carried a tag, as guessed from registers: the fault event has no pointer field\n",
			name, name);
	} else {
		fprintf(out, "# TYPE %s counter\n"
			"# HELP %s Page faults whose pointer carried a tag, read from the fault event\n",
			name, name);
	}
	for (i = 0; i < procs->nr; i++) {
		fprintf(out, "%s_total", name);
		proc_labels(out, procs->rows[i].pid, procs->rows[i].start_ns);
		fprintf(out, "} %llu\n",
			(unsigned long long)procs->rows[i].tagged_faults);
	}
}

/*
 * Tag values past the dense array (LAM_U48's 64-32767) are exported in
 * ranges of TAG_RANGE values, tag="LO-HI": 64 ranges at most, whatever
 * values a process uses, and labels that do not come and go with them.
 */
#define TAG_RANGE	(TT_TAG_VALUES_MAX / TT_TAG_VALUES)

static void tag_sample(FILE *out, const char *family,
		       const struct tt_tagrow *row, const char *event,
		       const char *tag, __u64 n)
{
	fprintf(out, "%s_total", family);
	proc_labels(out, row->pid, row->start_ns);
	label(out, "event", event, false);
	label(out, "tag", tag, false);
	fprintf(out, "} %llu\n", (unsigned long long)n);
}

static void wide_ranges(FILE *out, const char *family,
			const struct tt_tagrow *row, int e, const char *event)
{
	__u64 ranges[TT_TAG_VALUES] = { 0 };
	char tag[24];
	size_t i;
	int k;

	for (i = 0; i < row->nr_wide; i++) {
		__u32 v = row->wide[i].tag;

		if (v < TT_TAG_VALUES_MAX)
			ranges[v / TAG_RANGE] += e ? row->wide[i].fault :
						     row->wide[i].untag;
	}
	for (k = 0; k < TT_TAG_VALUES; k++) {
		if (!ranges[k])
			continue;
		/* The first range starts past the dense values. */
		snprintf(tag, sizeof(tag), "%d-%d",
			 k ? k * TAG_RANGE : TT_TAG_VALUES,
			 (k + 1) * TAG_RANGE - 1);
		tag_sample(out, family, row, event, tag, ranges[k]);
	}
}

/*
 * Per process, event and tag value, as family's samples, for the events
 * in [from, to) (0 untag, 1 fault): only the values seen, so at most
 * 2 x 64 series a process (and 2 x 64 ranges past them), and only when
 * asked for.
 */
static void tag_values(FILE *out, const struct tt_tagreport *r,
		       const char *family, int from, int to)
{
	static const char *const events[] = { "untag", "fault" };
	size_t i;
	int e, t;

	for (i = 0; i < r->nr; i++) {
		const struct tt_tagrow *row = &r->rows[i];

		for (e = from; e < to; e++) {
			const __u64 *v = e ? row->tags.fault : row->tags.untag;

			for (t = 0; t < TT_TAG_VALUES; t++) {
				char tag[12];

				if (!v[t])
					continue;
				snprintf(tag, sizeof(tag), "%d", t);
				tag_sample(out, family, row, events[e], tag,
					   v[t]);
			}
			wide_ranges(out, family, row, e, events[e]);
		}
	}
}

/* Fault tag values guessed from registers go to a family of their own. */
static void tag_families(FILE *out, const struct tt_export *x)
{
	const char *exact = "tagtrace_tag_values";
	const char *guess = "tagtrace_guessed_tag_values";
	bool guessed = x->src[TT_EV_FAULT] != TT_SRC_NONE &&
		       x->procs->fault_tags_guessed;

	fprintf(out, "# TYPE %s counter\n"
		"# HELP %s Pointers by tag value: untags by the tag stripped, faults by the tag their pointer carried (0: none) as the fault event says\n",
		exact, exact);
	tag_values(out, x->tags, exact, 0, guessed ? 1 : 2);
	if (!guessed)
		return;
	fprintf(out, "# TYPE %s counter\n"
		"# HELP %s Faults by the tag their pointer carried (0: none) as guessed from registers: the fault event has no pointer field\n",
		guess, guess);
	tag_values(out, x->tags, guess, 1, 2);
}

/*
 * Where each process's tagged faults and #GPs happened: its TT_TEXT_LOCS
 * busiest places, named as tags names them ("helper+0xaa (tagalloc)"),
 * so at most 3 series a process. Faults whose tag is a guess go to a
 * family of their own.
 */
static void places(FILE *out, const struct tt_tagreport *r,
		   const char *family, bool guessed_faults)
{
	char buf[TT_USYM_TEXT_SYM + TT_NAME_LEN + 64];
	const struct tt_loc_count *l;
	struct tt_uloc loc;
	size_t i, k, n;
	bool fault;

	for (i = 0; i < r->nr; i++) {
		const struct tt_tagrow *row = &r->rows[i];

		for (k = n = 0; k < row->nr_locs && n < TT_TEXT_LOCS; k++) {
			l = &row->locs[k];
			fault = l->kind == TT_EV_FAULT;
			if (guessed_faults ? !fault :
					     fault && r->fault_tags_guessed)
				continue;
			n++;
			tt_uloc_text(&l->f, tt_tagreport_locate(r, row, l, &loc),
				     buf, sizeof(buf));
			fprintf(out, "%s_total", family);
			proc_labels(out, row->pid, row->start_ns);
			label(out, "event", tt_event_name(l->kind), false);
			label(out, "place", buf, false);
			fprintf(out, "} %llu\n", (unsigned long long)l->count);
		}
	}
}

static void place_families(FILE *out, const struct tt_export *x)
{
	const char *exact = "tagtrace_misuse_places";
	const char *guess = "tagtrace_guessed_misuse_places";

	fprintf(out, "# TYPE %s counter\n"
		"# HELP %s Tagged faults and #GPs of a process at its %d busiest places (function+offset and file)\n",
		exact, exact, TT_TEXT_LOCS);
	places(out, x->tags, exact, false);
	if (!x->tags->fault_tags_guessed)
		return;
	fprintf(out, "# TYPE %s counter\n"
		"# HELP %s Faults whose pointer's tag was guessed from registers, at a process's %d busiest places\n",
		guess, guess, TT_TEXT_LOCS);
	places(out, x->tags, guess, true);
}

static void hist_labels(FILE *out, const struct tt_hist_key *k)
{
	fputc('{', out);
	label(out, "prev_mode", tt_mode_name(k->prev_mode), true);
	label(out, "next_mode", tt_mode_name(k->next_mode), false);
	label(out, "same_mm", k->same_mm ? "1" : "0", false);
}

/*
 * Time is counted in whole ns, so bucket i (values up to 2^(i+1) - 1 ns)
 * is exactly "le" that bound; the last slot also takes everything larger
 * and is +Inf alone. BPF adds to a slot, the count and the sum one after
 * the other, and a reader can see any prefix of that: +Inf and _count are
 * the sum of the slots, so the buckets stay cumulative and end at _count
 * whatever the reader caught (a torn _sum is off by one switch at most).
 */
static void histogram(FILE *out, const char *name,
		      const struct tt_hist_entry *e)
{
	__u64 cum = 0, low, high;
	int b;

	for (b = 0; b < TT_HIST_SLOTS - 1; b++) {
		cum += e->hist.slots[b];
		tt_bucket_bounds(b, &low, &high);
		fprintf(out, "%s_bucket", name);
		hist_labels(out, &e->key);
		fprintf(out, ",le=\"%llu.%09llu\"} %llu\n",
			high / 1000000000ULL, high % 1000000000ULL,
			(unsigned long long)cum);
	}
	cum += e->hist.slots[b];
	fprintf(out, "%s_bucket", name);
	hist_labels(out, &e->key);
	fprintf(out, ",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
	fprintf(out, "%s_count", name);
	hist_labels(out, &e->key);
	fprintf(out, "} %llu\n", (unsigned long long)cum);
	fprintf(out, "%s_sum", name);
	hist_labels(out, &e->key);
	fprintf(out, "} %.9f\n", e->hist.sum / 1e9);
}

static void histograms(FILE *out, const struct tt_hist_entry *hists, int nr)
{
	const char *name = "tagtrace_switch_mm_seconds";
	int i;

	fprintf(out, "# TYPE %s histogram\n# UNIT %s seconds\n", name, name);
	fprintf(out, "# HELP %s Time spent in switch_mm_irqs_off by mode transition\n",
		name);
	for (i = 0; i < nr; i++)
		histogram(out, name, &hists[i]);
}

/*
 * A gauge named like an info metric (value 1, the facts in labels): the
 * OpenMetrics "info" type would be exact, but node_exporter's textfile
 * collector parses the older Prometheus format and rejects the whole file
 * for a type it does not know.
 */
static void sources(FILE *out, const struct tt_export *x)
{
	int k;

	fputs("# TYPE tagtrace_source_info gauge\n"
	      "# HELP tagtrace_source_info Where each event comes from on this kernel; unavailable events have no counters; fault_pointer: fault tags read from the event, or guessed from registers\n",
	      out);
	for (k = 0; k < TT_EV_MAX; k++) {
		fputs("tagtrace_source_info{", out);
		label(out, "event", tt_event_name(k), true);
		label(out, "source", tt_source_name(x->src[k]), false);
		if (k == TT_EV_FAULT && x->src[k] != TT_SRC_NONE)
			label(out, "fault_pointer",
			      tt_fault_pointer_name(x->procs->fault_tags_guessed),
			      false);
		fputs("} 1\n", out);
	}
	if (!x->hist_asked)
		return;
	fputs("tagtrace_source_info{", out);
	label(out, "event", "switch_time", true);
	label(out, "source", tt_source_name(x->hist_src), false);
	fputs("} 1\n", out);
}

/*
 * The file's own health: a write that fails leaves the last good file in
 * place, and its timestamp, no longer advancing, is what tells a scraper
 * that the counters beside it are stale (time() minus it, in PromQL).
 */
static void file_status(FILE *out, const struct tt_export *x)
{
	const char *when = "tagtrace_openmetrics_last_success_timestamp_seconds";
	const char *fails = "tagtrace_openmetrics_write_failures";

	fprintf(out, "# TYPE %s gauge\n# UNIT %s seconds\n"
		"# HELP %s When tagtrace wrote this file, Unix time; it stops advancing while writes fail\n",
		when, when, when);
	/* To the millisecond: finer is noise beside an interval. */
	fprintf(out, "%s %llu.%03llu\n", when,
		(unsigned long long)(x->written_ns / 1000000000ULL),
		(unsigned long long)(x->written_ns / 1000000ULL % 1000));
	fprintf(out, "# TYPE %s counter\n"
		"# HELP %s Writes of this file that failed since tagtrace started\n",
		fails, fails);
	fprintf(out, "%s_total %llu\n", fails,
		(unsigned long long)x->write_failures);
}

void tt_openmetrics(FILE *out, const struct tt_export *x)
{
	const struct tt_snapshot *procs = x->procs;
	size_t i;
	int k;

	file_status(out, x);
	sources(out, x);
	for (k = 0; k < TT_EV_MAX; k++) {
		if (x->src[k] == TT_SRC_NONE)
			continue;	/* unknown, not zero */
		fprintf(out, "# TYPE %s counter\n# HELP %s %s\n",
			counters[k].name, counters[k].name, counters[k].help);
		for (i = 0; i < procs->nr; i++) {
			fprintf(out, "%s_total", counters[k].name);
			proc_labels(out, procs->rows[i].pid,
				    procs->rows[i].start_ns);
			fprintf(out, "} %llu\n",
				(unsigned long long)procs->rows[i].count[k]);
		}
		if (k == TT_EV_FAULT)
			faults_with_tag(out, procs);
	}
	if (x->tags) {
		tag_families(out, x);
		place_families(out, x);
	}
	fputs("# TYPE tagtrace_process_info gauge\n"
	      "# HELP tagtrace_process_info A process's name and tagging mode, as of its last event\n",
	      out);
	for (i = 0; i < procs->nr; i++) {
		fputs("tagtrace_process_info", out);
		proc_labels(out, procs->rows[i].pid, procs->rows[i].start_ns);
		label(out, "comm", procs->rows[i].comm, false);
		label(out, "mode", tt_mode_name(procs->rows[i].mode), false);
		fputs("} 1\n", out);
	}
	fputs("# TYPE tagtrace_process_tag_bits gauge\n"
	      "# HELP tagtrace_process_tag_bits Tag bits the process has, as of its last event\n",
	      out);
	for (i = 0; i < procs->nr; i++) {
		fputs("tagtrace_process_tag_bits", out);
		proc_labels(out, procs->rows[i].pid, procs->rows[i].start_ns);
		fprintf(out, "} %d\n", procs->rows[i].tag_bits);
	}
	fputs("# TYPE tagtrace_uncounted_events counter\n"
	      "# HELP tagtrace_uncounted_events Events not counted: a process or tag value map full or busy, a switch of a mode the histograms have no place for, or a run BPF skipped\n",
	      out);
	fprintf(out, "tagtrace_uncounted_events_total %llu\n",
		(unsigned long long)x->uncounted);
	if (x->hist_asked && x->hist_src != TT_SRC_NONE)
		histograms(out, x->hists, x->nr_hists);
	fputs("# EOF\n", out);
}

/* A new file next to path, as a stream; its name in tmp. */
static FILE *open_temp(char *tmp)
{
	int fd = mkstemp(tmp);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
	} else {
		fchmod(fd, 0644);	/* scrapers run as other users */
	}
	return f;
}

int tt_openmetrics_file(const char *path, const struct tt_export *x)
{
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	FILE *f;
	int err = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp.XXXXXX", path);
	f = open_temp(tmp);
	if (!f) {
		err = -errno;
		free(tmp);
		return err;
	}
	/*
	 * No fsync: a scraper reads the file through the page cache, and
	 * after a crash the next interval writes it again. The rename alone
	 * keeps a reader from seeing half a file.
	 */
	tt_openmetrics(f, x);
	if (fflush(f))
		err = -errno;
	else if (ferror(f))	/* an earlier write of the buffer failed */
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
