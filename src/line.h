/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A text line built in memory with hand-rolled number formatting, then
 * written out whole: what trace does for every record, where printf's
 * format parsing and floating point cost more than the rest together.
 * The appenders are inline, so a literal's length is known at compile
 * time and a short copy is a move or two.
 */
#ifndef TT_LINE_H
#define TT_LINE_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#define TT_LINE_MAX	1024

/* What does not fit is cut: len never passes TT_LINE_MAX. */
struct tt_line {
	size_t len;
	char buf[TT_LINE_MAX];
};

static inline void tt_line_init(struct tt_line *l)
{
	l->len = 0;
}

/*
 * The copy that fits is the one the compiler sees with n as the caller
 * wrote it: a literal's is a move or two, not a call of memcpy().
 */
static inline void tt_line_put(struct tt_line *l, const char *s, size_t n)
{
	if (__builtin_expect(n <= TT_LINE_MAX - l->len, 1)) {
		memcpy(l->buf + l->len, s, n);
		l->len += n;
		return;
	}
	n = TT_LINE_MAX - l->len;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

/* At most maxlen bytes of s, up to its NUL. */
static inline void tt_line_strn(struct tt_line *l, const char *s,
				size_t maxlen)
{
	tt_line_put(l, s, strnlen(s, maxlen));
}

static inline void tt_line_str(struct tt_line *l, const char *s)
{
	tt_line_put(l, s, strlen(s));
}

static inline void tt_line_char(struct tt_line *l, char c)
{
	if (l->len < TT_LINE_MAX)
		l->buf[l->len++] = c;
}

/* Spaces up to column col of the line, and at least one. */
static inline void tt_line_pad(struct tt_line *l, size_t col)
{
	size_t n = col > l->len ? col - l->len : 1;

	/* Columns are at most 16 wide: 16 spaces, of which n count. */
	if (__builtin_expect(n <= 16 && TT_LINE_MAX - l->len >= 16, 1)) {
		memset(l->buf + l->len, ' ', 16);
		l->len += n;
		return;
	}
	if (n > TT_LINE_MAX - l->len)
		n = TT_LINE_MAX - l->len;
	memset(l->buf + l->len, ' ', n);
	l->len += n;
}

void tt_line_u64(struct tt_line *l, __u64 v);
void tt_line_s64(struct tt_line *l, __s64 v);
/* "0x" and lower-case hex digits, as printf's "0x%llx". */
void tt_line_hex(struct tt_line *l, __u64 v);
/* ns as seconds with 6 decimals, rounded to the nearest microsecond. */
void tt_line_seconds(struct tt_line *l, __u64 ns);

#endif /* TT_LINE_H */
