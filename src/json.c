// SPDX-License-Identifier: GPL-2.0
/* Just enough JSON writing for NDJSON records: keys, strings, numbers. */
#include <string.h>
#include "json.h"
#include "line.h"

void json_begin(struct json *j, FILE *out)
{
	j->out = out;
	j->first = true;
	fputc('{', out);
}

void json_end(struct json *j)
{
	fputc('}', j->out);
}

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * no overlong forms, no surrogates, nothing past U+10FFFF.
 */
size_t tt_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The bytes a JSON string holds as they are: printable ASCII but " and \. */
static const unsigned char plain[256] = {
	[0x20 ... 0x21] = 1,	/* '"' is 0x22 */
	[0x23 ... 0x5b] = 1,	/* '\\' is 0x5c */
	[0x5d ... 0x7e] = 1,
};

/*
 * s[i..n) escaped per RFC 8259 into l, as far as l has room for the
 * longest escape; returns where it stopped. A comm is bytes, not text:
 * invalid UTF-8 becomes U+FFFD so every line stays valid JSON.
 */
static size_t escape(struct tt_line *l, const unsigned char *s, size_t i,
		     size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (; i < n && l->len + 8 < TT_LINE_MAX; i++) {
		unsigned char c = s[i];
		char u[6] = { '\\', 'u', '0', '0' };
		size_t len;

		/* A run of printable ASCII needing no escape: one copy. */
		for (len = 0; i + len < n && plain[s[i + len]]; len++)
			;
		if (len > TT_LINE_MAX - l->len - 8)
			len = TT_LINE_MAX - l->len - 8;
		if (len) {
			tt_line_put(l, (const char *)s + i, len);
			i += len - 1;
		} else if (c == '"' || c == '\\') {
			tt_line_char(l, '\\');
			tt_line_char(l, c);
		} else if (c == '\n') {
			tt_line_put(l, "\\n", 2);
		} else if (c == '\t') {
			tt_line_put(l, "\\t", 2);
		} else if (c < 0x20 || c == 0x7f) {
			u[4] = hex[c >> 4];
			u[5] = hex[c & 0xf];
			tt_line_put(l, u, sizeof(u));
		} else if ((len = tt_utf8_len(s + i, n - i))) {
			tt_line_put(l, (const char *)s + i, len);
			i += len - 1;
		} else {
			tt_line_put(l, "\\ufffd", 6);
		}
	}
	return i;
}

static size_t bounded_len(const char *s, size_t maxlen)
{
	return strnlen(s, maxlen);
}

void tt_line_json_str(struct tt_line *l, const char *s, size_t maxlen)
{
	size_t n = bounded_len(s, maxlen);

	tt_line_char(l, '"');
	escape(l, (const unsigned char *)s, 0, n);
	tt_line_char(l, '"');
}

/* A string, escaped per RFC 8259; at most maxlen bytes of s (comm fields). */
void json_str(FILE *out, const char *str, size_t maxlen)
{
	size_t n = bounded_len(str, maxlen), i = 0;
	struct tt_line l;

	tt_line_init(&l);
	tt_line_char(&l, '"');
	for (;;) {
		i = escape(&l, (const unsigned char *)str, i, n);
		if (i == n)
			break;
		fwrite(l.buf, 1, l.len, out);
		tt_line_init(&l);
	}
	tt_line_char(&l, '"');
	fwrite(l.buf, 1, l.len, out);
}

void json_key(struct json *j, const char *key)
{
	if (!j->first)
		fputc(',', j->out);
	j->first = false;
	json_str(j->out, key, strlen(key));
	fputc(':', j->out);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j->out, s, strlen(s));
}

/* Numbers are formatted by hand (line.h): trace writes several a record. */
void json_kint(struct json *j, const char *key, long long v)
{
	struct tt_line l;

	json_key(j, key);
	tt_line_init(&l);
	tt_line_s64(&l, v);
	fwrite(l.buf, 1, l.len, j->out);
}

void json_kuint(struct json *j, const char *key, unsigned long long v)
{
	struct tt_line l;

	json_key(j, key);
	tt_line_init(&l);
	tt_line_u64(&l, v);
	fwrite(l.buf, 1, l.len, j->out);
}

/* Addresses and masks: hex strings, since JSON numbers lose bits past 2^53. */
void tt_line_json_hex(struct tt_line *l, unsigned long long v)
{
	tt_line_char(l, '"');
	tt_line_hex(l, v);
	tt_line_char(l, '"');
}

void tt_line_json_bool(struct tt_line *l, bool v)
{
	if (v)
		tt_line_put(l, "true", 4);
	else
		tt_line_put(l, "false", 5);
}

void json_khex(struct json *j, const char *key, unsigned long long v)
{
	struct tt_line l;

	json_key(j, key);
	tt_line_init(&l);
	tt_line_json_hex(&l, v);
	fwrite(l.buf, 1, l.len, j->out);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	fprintf(j->out, "%.3f", v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	struct tt_line l;

	json_key(j, key);
	tt_line_init(&l);
	tt_line_json_bool(&l, v);
	fwrite(l.buf, 1, l.len, j->out);
}
