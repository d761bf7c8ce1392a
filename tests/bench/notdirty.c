// SPDX-License-Identifier: GPL-2.0
/*
 * notdirty STORES: what a store costs the emulator on a page that holds
 * translated code, beside one on a page without code (for
 * tests/bench/notdirty.sh, in the guest).
 *
 * A page gets a small function (MOV $1, %EAX; RET), which is called once,
 * so that TCG translates it and write-protects the page for code: from
 * then on every store to the page, also to bytes far from the function,
 * takes QEMU's notdirty path (the TBs of the written range are looked for
 * and invalidated). STORES 8-byte stores then go to the second half of
 * that page, and as many to a page without code. Prints
 * code_page_ns=N and data_page_ns=N per store (guest wall time), and
 * fails if the function does not return 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double store_ns(volatile uint64_t *p, long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		p[i & 255] = i;
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	static const unsigned char fn[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
	long n = argc > 1 ? atol(argv[1]) : 0;
	unsigned char *code, *data;
	int (*f)(void);

	if (n <= 0) {
		fprintf(stderr, "usage: notdirty STORES\n");
		return 2;
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED || data == MAP_FAILED) {
		perror("notdirty: mmap");
		return 1;
	}
	memcpy(code, fn, sizeof(fn));
	memset(data, 0, 4096);
	f = (int (*)(void))code;
	if (f() != 1) {
		fprintf(stderr, "notdirty: the function did not return 1\n");
		return 1;
	}
	printf("code_page_ns=%.1f\n", store_ns((uint64_t *)(code + 2048), n));
	printf("data_page_ns=%.1f\n", store_ns((uint64_t *)(data + 2048), n));
	if (f() != 1) {
		fprintf(stderr, "notdirty: the function did not return 1\n");
		return 1;
	}
	return 0;
}
