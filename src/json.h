/* SPDX-License-Identifier: GPL-2.0 */
/* Just enough JSON writing for NDJSON records: keys, strings, numbers. */
#ifndef TT_JSON_H
#define TT_JSON_H

#include <stdbool.h>
#include <stdio.h>

/* A writer for one object or array; "first" suppresses the comma. */
struct json {
	FILE *out;
	bool first;
};

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
size_t tt_utf8_len(const unsigned char *s, size_t n);

void json_begin(struct json *j, FILE *out);	/* { */
void json_end(struct json *j);			/* } */
void json_key(struct json *j, const char *key);	/* "key": (after a comma) */
void json_str(FILE *out, const char *s, size_t maxlen);
struct tt_line;
/*
 * The same, appended to a line (quotes included); a string whose escapes
 * do not fit is cut, so callers keep to short ones (names, comm).
 */
void tt_line_json_str(struct tt_line *l, const char *s, size_t maxlen);
/* Addresses and masks as hex strings; booleans. Appended to a line. */
void tt_line_json_hex(struct tt_line *l, unsigned long long v);
void tt_line_json_bool(struct tt_line *l, bool v);
void json_kstr(struct json *j, const char *key, const char *s);
void json_kint(struct json *j, const char *key, long long v);
void json_kuint(struct json *j, const char *key, unsigned long long v);
void json_khex(struct json *j, const char *key, unsigned long long v);
void json_kdouble(struct json *j, const char *key, double v);
void json_kbool(struct json *j, const char *key, bool v);

#endif /* TT_JSON_H */
