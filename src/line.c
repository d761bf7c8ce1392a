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

/* Decimal digits of v: 1 for 0. */
static int dec_digits(__u64 v)
{
	static const __u64 pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* log10(2) is about 1233/4096: the count or one less. */
	int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + (v >= pow10[t]);
}

/*
 * v in decimal, at least width digits (zeros in front), written where
 * they go, from the last: width <= 20.
 */
static void put_dec(struct tt_line *l, __u64 v, int width)
{
	int n = dec_digits(v), i;
	char tmp[20], *d;

	if (n < width)
		n = width;
	d = TT_LINE_MAX - l->len >= 20 ? l->buf + l->len : tmp;
	i = n;
	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		i -= 2;
		memcpy(d + i, dec2 + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(d + i, dec2 + 2 * v, 2);
	} else {
		d[--i] = '0' + v;
	}
	while (i > 0)
		d[--i] = '0';
	if (d == tmp)
		tt_line_put(l, tmp, n);
	else
		l->len += n;
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

/* Each byte's two hex digits. */
static const char hex2[512] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void tt_line_hex(struct tt_line *l, __u64 v)
{
	int n = 2 + (67 - __builtin_clzll(v | 1)) / 4, i = n;
	char tmp[18], *d;

	d = TT_LINE_MAX - l->len >= 18 ? l->buf + l->len : tmp;
	/* A byte a step: addresses have 12 to 16 digits. */
	while (i > 3) {
		i -= 2;
		memcpy(d + i, hex2 + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	if (i == 3)
		d[2] = hex2[2 * (v & 0xf) + 1];
	d[0] = '0';
	d[1] = 'x';
	if (d == tmp)
		tt_line_put(l, tmp, n);
	else
		l->len += n;
}

void tt_line_seconds(struct tt_line *l, __u64 ns)
{
	__u64 us = ns / 1000 + (ns % 1000 >= 500);

	put_dec(l, us / 1000000, 1);
	tt_line_char(l, '.');
	put_dec(l, us % 1000000, 6);
}
