// SPDX-License-Identifier: GPL-2.0
/* The numbers of a text line, formatted by hand. */
#include "line.h"

/* v in decimal, at least width digits (zeros in front). */
static void put_dec(struct tt_line *l, __u64 v, int width)
{
	char d[20];
	int n = 0;

	do {
		d[sizeof(d) - ++n] = '0' + v % 10;
		v /= 10;
	} while (v || n < width);
	tt_line_put(l, d + sizeof(d) - n, n);
}

void tt_line_u64(struct tt_line *l, __u64 v)
{
	put_dec(l, v, 1);
}

void tt_line_s64(struct tt_line *l, __s64 v)
{
	if (v < 0)
		tt_line_char(l, '-');
	put_dec(l, v < 0 ? -(__u64)v : (__u64)v, 1);
}

void tt_line_hex(struct tt_line *l, __u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char d[18];
	int n = 0;

	do {
		d[sizeof(d) - ++n] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	d[sizeof(d) - ++n] = 'x';
	d[sizeof(d) - ++n] = '0';
	tt_line_put(l, d + sizeof(d) - n, n);
}

void tt_line_seconds(struct tt_line *l, __u64 ns)
{
	__u64 us = ns / 1000 + (ns % 1000 >= 500);

	put_dec(l, us / 1000000, 1);
	tt_line_char(l, '.');
	put_dec(l, us % 1000000, 6);
}
