// SPDX-License-Identifier: GPL-2.0
/* Log2 histograms as ASCII bars (libbpf-tools' style) and as JSON. */
#include <string.h>
#include "clock.h"
#include "histfmt.h"
#include "json.h"
#include "names.h"

#define BAR_WIDTH 30

void tt_bucket_bounds(int i, __u64 *low, __u64 *high)
{
	*low = i ? 1ULL << i : 0;
	*high = (1ULL << (i + 1)) - 1;
}

const char *tt_hist_title(const struct tt_hist_key *key, char *buf, size_t len)
{
	if (key->same_mm)
		snprintf(buf, len, "same mm (%s)", tt_mode_name(key->prev_mode));
	else
		snprintf(buf, len, "%s -> %s", tt_mode_name(key->prev_mode),
			 tt_mode_name(key->next_mode));
	return buf;
}

/* Switches counted: the sum of the buckets. */
static __u64 switches(const struct tt_hist *h)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < TT_HIST_SLOTS; i++)
		n += h->slots[i];
	return n;
}

/* The used range of buckets: [0, *last], or none when empty. */
static int last_used(const struct tt_hist *h)
{
	int i;

	for (i = TT_HIST_SLOTS - 1; i >= 0; i--)
		if (h->slots[i])
			return i;
	return -1;
}

void tt_hist_text(FILE *out, const struct tt_hist_key *key,
		  const struct tt_hist *h, const char *unit)
{
	int i, last = last_used(h), first = 0;
	__u64 max = 0, low, high, n = switches(h);
	char title[64], range[48];

	fprintf(out, "switch_mm %s: %llu switches, mean %.1f %s\n",
		tt_hist_title(key, title, sizeof(title)),
		(unsigned long long)n, n ? (double)h->sum / n : 0.0, unit);
	if (last < 0)
		return;
	while (!h->slots[first])
		first++;
	for (i = first; i <= last; i++)
		if (h->slots[i] > max)
			max = h->slots[i];
	fprintf(out, "%24s : %-10s distribution\n", unit, "count");
	for (i = first; i <= last; i++) {
		int n = (int)(h->slots[i] * BAR_WIDTH / max), j;

		tt_bucket_bounds(i, &low, &high);
		snprintf(range, sizeof(range), "%llu -> %llu",
			 (unsigned long long)low, (unsigned long long)high);
		fprintf(out, "%24s : %-10llu |", range,
			(unsigned long long)h->slots[i]);
		for (j = 0; j < BAR_WIDTH; j++)
			fputc(j < n ? '*' : ' ', out);
		fputs("|\n", out);
	}
}

void tt_hist_json(FILE *out, const struct tt_hist_key *key,
		  const struct tt_hist *h, const char *unit)
{
	struct json j;
	__u64 low, high, n = switches(h);
	int i, last = last_used(h);
	bool first = true;

	json_begin(&j, out);
	json_kstr(&j, "prev_mode", tt_mode_name(key->prev_mode));
	json_kstr(&j, "next_mode", tt_mode_name(key->next_mode));
	json_kbool(&j, "same_mm", key->same_mm);
	json_kstr(&j, "unit", unit);
	json_kuint(&j, "count", n);
	json_kuint(&j, "sum", h->sum);
	json_kdouble(&j, "mean", n ? (double)h->sum / n : 0);
	json_key(&j, "buckets");
	fputc('[', out);
	for (i = 0; i <= last; i++) {
		struct json b;

		if (!h->slots[i])
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		tt_bucket_bounds(i, &low, &high);
		json_begin(&b, out);
		json_kuint(&b, "low", low);
		json_kuint(&b, "high", high);
		json_kuint(&b, "count", h->slots[i]);
		json_end(&b);
	}
	fputc(']', out);
	json_end(&j);
}

void tt_hist_sub(struct tt_hist *h, const struct tt_hist *old)
{
	int i;

	for (i = 0; i < TT_HIST_SLOTS; i++)
		h->slots[i] -= old->slots[i];
	h->sum -= old->sum;
}

static const struct tt_hist *find(const struct tt_hist_set *set,
				  const struct tt_hist_key *key)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (!memcmp(&set->e[i].key, key, sizeof(*key)))
			return &set->e[i].hist;
	return NULL;
}

/*
 * Each time runs from the entry program's clock read to the exit
 * program's: the trampoline (fentry) or the return probe (kretprobe, much
 * slower) that the function returns through is inside it.
 */
const char *tt_hist_source_text(unsigned int src)
{
	switch (src) {
	case TT_SRC_FENTRY:
		return "fentry/fexit (times include the BPF trampoline)";
	case TT_SRC_KPROBE:
		return "kprobe/kretprobe (times include the kretprobe trampoline)";
	default:
		return tt_source_name(src);
	}
}

void tt_hist_report(FILE *out, const struct tt_hist_report *rep,
		    const struct tt_hist_set *cur,
		    const struct tt_hist_set *prev)
{
	struct json j;
	char when[16];
	int i, shown = 0;

	if (rep->json) {
		json_begin(&j, out);
		json_kuint(&j, "ts_ns", rep->ts_ns);
		json_kdouble(&j, "interval_s", rep->interval_s);
		json_kuint(&j, "uncounted", rep->uncounted);
		json_kstr(&j, "source", tt_source_name(rep->src));
		json_key(&j, "histograms");
		fputc('[', out);
	} else {
		fprintf(out, "\n%s  timed by %s\n",
			tt_clock_hms(rep->when, when, sizeof(when)),
			tt_hist_source_text(rep->src));
	}
	for (i = 0; i < cur->nr; i++) {
		const struct tt_hist_key *key = &cur->e[i].key;
		const struct tt_hist *old = find(prev, key);
		struct tt_hist h = cur->e[i].hist;

		if (old)
			tt_hist_sub(&h, old);
		if (!switches(&h))
			continue;
		if (rep->json) {
			if (shown)
				fputc(',', out);
			tt_hist_json(out, key, &h, rep->unit);
		} else {
			tt_hist_text(out, key, &h, rep->unit);
		}
		shown++;
	}
	if (rep->json) {
		fputc(']', out);
		json_end(&j);
		fputc('\n', out);
	} else if (!shown) {
		fputs("no context switches\n", out);
	}
}
