// SPDX-License-Identifier: GPL-2.0
/*
 * hwasan_prog: a HWASan-instrumented workload with known numbers, for
 * tagtrace's tag tests and the demo. Built with clang-14
 * -fsanitize=hwaddress, whose x86_64 runtime enables tagging at start
 * (PR_SET_TAGGED_ADDR_CTRL asking for 6 bits at 57) and tags every heap
 * pointer with a random tag; LLVM 14 tags globals (string literals too).
 *
 *   hwasan_prog N W U P [--uaf]
 *
 * N heap allocations of 64 bytes, each passed W times to write() on
 * /dev/null; U uname() calls into a heap buffer; then P fresh pages of one
 * large allocation written once each through its tagged pointer. Every
 * such call, and the open() of "/dev/null" (a tagged global), passes one
 * tagged pointer to the kernel. The results go out through write() of a
 * global buffer's untagged address: no untag events.
 * --uaf ends with a read of a freed allocation: HWASan reports a
 * tag-mismatch on stderr and aborts the process.
 *
 * Prints pid=, allocs=, writes=, unames=, opens=, pages=, big_tag= (the
 * large allocation's) and tag_<T>= (how many of the untags it caused carry
 * tag T), as key=value lines.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#define TAG_SHIFT	57
#define TAG_COUNT	64

static const char null_dev[] = "/dev/null";
static char out[64];
static unsigned long per_tag[TAG_COUNT];

static unsigned int tag_of(const void *p)
{
	return ((uintptr_t)p >> TAG_SHIFT) & (TAG_COUNT - 1);
}

/* Through write() of out's untagged address: no untag events. */
static void say(const char *key, long v)
{
	int n = snprintf(out, sizeof(out), "%s=%ld\n", key, v);
	uintptr_t plain = (uintptr_t)out &
			  ~((uintptr_t)(TAG_COUNT - 1) << TAG_SHIFT);

	if (write(1, (const void *)plain, n) != n)
		exit(2);
}

int main(int argc, char **argv)
{
	long n, w, u, pages, i, j;
	struct utsname *un;
	char **bufs, *big;
	int fd;

	if (argc < 5)
		return 2;
	n = atol(argv[1]);
	w = atol(argv[2]);
	u = atol(argv[3]);
	pages = atol(argv[4]);
	fd = open(null_dev, O_WRONLY);
	per_tag[tag_of(null_dev)]++;
	bufs = calloc(n, sizeof(*bufs));
	un = malloc(sizeof(*un));
	if (fd < 0 || !bufs || !un)
		return 3;
	say("pid", getpid());
	for (i = 0; i < n; i++) {
		bufs[i] = malloc(64);
		if (!bufs[i])
			return 3;
		memset(bufs[i], 'x', 64);
		for (j = 0; j < w; j++)
			if (write(fd, bufs[i], 64) != 64)
				return 4;
		per_tag[tag_of(bufs[i])] += w;
	}
	for (i = 0; i < u; i++)
		if (uname(un))
			return 5;
	per_tag[tag_of(un)] += u;
	big = malloc(pages * 4096);
	if (!big)
		return 3;
	for (i = 0; i < pages; i++)
		big[i * 4096] = 1;
	say("allocs", n);
	say("writes", n * w);
	say("unames", u);
	say("opens", 1);
	say("pages", pages);
	say("big_tag", tag_of(big));
	/* Its untagged range, for the faults' addresses to be checked in. */
	say("big_start", (long)((uintptr_t)big & ((1UL << TAG_SHIFT) - 1)));
	say("big_end", (long)((uintptr_t)big & ((1UL << TAG_SHIFT) - 1)) + pages * 4096);
	for (i = 0; i < TAG_COUNT; i++) {
		char key[16];

		if (!per_tag[i])
			continue;
		snprintf(key, sizeof(key), "tag_%ld", i);
		say(key, per_tag[i]);
	}
	for (i = 0; i < n; i++)
		free(bufs[i]);
	free(big);
	if (argc > 5 && !strcmp(argv[5], "--uaf"))
		return bufs[0][3];	/* freed: HWASan's tag-mismatch */
	return 0;
}
