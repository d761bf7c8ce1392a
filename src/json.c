// SPDX-License-Identifier: GPL-2.0
/* Just enough JSON writing for NDJSON records: keys, strings, numbers. */
#include <string.h>
#include "json.h"

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

/* A string, escaped per RFC 8259; at most maxlen bytes of s (comm fields). */
void json_str(FILE *out, const char *s, size_t maxlen)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < maxlen && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
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

void json_kint(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	fprintf(j->out, "%lld", v);
}

void json_kuint(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	fprintf(j->out, "%llu", v);
}

/* Addresses and masks: hex strings, since JSON numbers lose bits past 2^53. */
void json_khex(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	fprintf(j->out, "\"0x%llx\"", v);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	fprintf(j->out, "%.3f", v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->out);
}
