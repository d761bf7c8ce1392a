// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers of a text line, formatted by hand, two digits a step: trace
 * writes five to eight numbers a record, and a digit at a time was a
 * tenth of its instructions per record.
 */
#include "line.h"

static const char dec2[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in decimal, at least width digits (zeros in front); width <= 20. */
static void put_dec(struct tt_line *l, __u64 v, int width)
{
	char d[20];
	int n = 0;

	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		n += 2;
		memcpy(d + sizeof(d) - n, dec2 + 2 * r, 2);
	}
	if (v >= 10) {
		n += 2;
		memcpy(d + sizeof(d) - n, dec2 + 2 * v, 2);
	} else {
		d[sizeof(d) - ++n] = '0' + v;
	}
	while (n < width)
		d[sizeof(d) - ++n] = '0';
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

	/* A byte a step: addresses have 12 to 16 digits. */
	while (v > 0xf) {
		n += 2;
		d[sizeof(d) - n] = digits[v >> 4 & 0xf];
		d[sizeof(d) - n + 1] = digits[v & 0xf];
		v >>= 8;
	}
	if (v)
		d[sizeof(d) - ++n] = digits[v];
	else if (!n)
		d[sizeof(d) - ++n] = '0';
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
