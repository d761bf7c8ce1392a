// SPDX-License-Identifier: GPL-2.0
/*
 * Translations of a page that another CPU stores to, under the rig's
 * multi-threaded TCG (--smp 2):
 *
 *   tests/vm/run --smp 2 -- build/vm/codepage ROUNDS [PHASE...]
 *
 * In each phase CPU 0 writes a function ("mov $N, %eax", "inc %eax" some
 * times, "ret") into a slot, calls it, and checks what it returns; each
 * call runs a fresh translation, as the store to the slot invalidated the
 * old one. Meanwhile a thread on CPU 1 stores 8-byte words in a loop.
 * How much the two vCPUs overlap is up to the host (two calls in a
 * hundred, on a busy one), so a phase makes ROUNDS calls and goes on until
 * ROUNDS / 20 of them saw the writer store while they ran, at most
 * MAX_CALLS * ROUNDS calls, a limit that only ends a phase whose writer
 * does not run beside CPU 0. QEMU compares the bytes a translation read
 * with the stores made meanwhile at the granule of a 64-byte line, and
 * takes a store after which a page has no translated code left as one to
 * every byte (the page then takes plain stores, which it does not see).
 * The phases, each on pages of its own (all of them, or those named):
 *
 *   far     7 slots of 256 bytes in the first half of the page, 240-byte
 *           functions, stores to the second half: none touches a line
 *           of the code;
 *   near    as far, the stores to the last 16 bytes of the slot in use:
 *           the line of the function's last 48 bytes, never its bytes;
 *   beside  as near with 192-byte functions: the stores are in the line
 *           after the function's;
 *   bare    one slot and no other code on the page, stores to the second
 *           half: each rewrite leaves the page without translated code;
 *   span    one 240-byte function across two pages, 128 bytes in the
 *           first, stores to bytes 112-127 of the second: the line of
 *           the function's last 48 bytes there.
 * In far, near, beside and span a function translated once at the start
 * of the first page, never rewritten, keeps it from being left without
 * translated code. The host counts the translations QEMU discarded per
 * phase in its trace (tb_link_page_stale, by the pc of the phase's first
 * page, printed as "# page PHASE ADDR"; tests/vm/test-emulation.sh):
 * none in far and beside, some in near, bare and span. This program
 * checks that every call returned its own value (the new code ran, never
 * a stale translation) and that ROUNDS / 20 of them ran while the writer
 * stored. Prints TAP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../lib/tap-check.h"

#define PAGE		4096
#define SLOT_SIZE	256
#define KEEPER		(7 * SLOT_SIZE)	/* far, near, beside: the 8th slot */
#define FAR		-1		/* stores to the second half of page 0 */
/* A phase's calls at most, in ROUNDS. */
#define MAX_CALLS	10

struct phase {
	const char *name;
	unsigned int first;	/* offset of the first slot */
	unsigned int slots;	/* slots used in turn, SLOT_SIZE apart */
	unsigned int incs;	/* the function is 5 + 2 * incs + 1 bytes */
	int keeper;		/* offset of the keeping function, or -1 */
	int store;		/* where the writer stores, from the slot in use */
};

static const struct phase phases[] = {
	{ "far",	0,		7, 117, KEEPER,	FAR },
	{ "near",	0,		7, 117, KEEPER,	240 },
	{ "beside",	0,		7,  93, KEEPER,	240 },
	{ "bare",	0,		1, 117, -1,	FAR },
	{ "span",	PAGE - 128,	1, 117, 0,	240 },
};

struct writer {
	volatile uint64_t *far;		/* the second half of the first page */
	uint8_t *volatile slot;		/* the slot in use */
	int store;
	volatile int stop;
	volatile unsigned long stores;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

static void *writer(void *arg)
{
	struct writer *w = arg;
	unsigned long n;

	pin(1);
	for (n = 0; !w->stop; n++) {
		if (w->store == FAR)
			w->far[n % (PAGE / 2 / 8)] = n;
		else
			((volatile uint64_t *)(w->slot + w->store))[n & 1] = n;
		w->stores = n + 1;
	}
	return NULL;
}

/* Write the function that returns @val + @incs to @code; call it. */
static unsigned int call_new(uint8_t *code, uint32_t val, unsigned int incs)
{
	unsigned int (*fn)(void) = (unsigned int (*)(void))(uintptr_t)code;
	unsigned int i;

	code[0] = 0xb8;				/* mov $val, %eax */
	memcpy(code + 1, &val, 4);
	for (i = 0; i < incs; i++) {
		code[5 + 2 * i] = 0xff;		/* inc %eax */
		code[6 + 2 * i] = 0xc0;
	}
	code[5 + 2 * incs] = 0xc3;		/* ret */
	return fn();
}

static void run(uint8_t *pages, const struct phase *ph, unsigned int rounds)
{
	struct writer w = { .far = (volatile uint64_t *)(pages + PAGE / 2),
			    .slot = pages + ph->first, .store = ph->store };
	unsigned long limit = MAX_CALLS * (unsigned long)rounds;
	unsigned long want = rounds / 20 ? rounds / 20 : 1;
	unsigned long i, wrong = 0, overlapped = 0, stores;
	uint8_t *slot;
	pthread_t t;

	memset(pages, 0xcc, 2 * PAGE);
	printf("# page %s %p\n", ph->name, (void *)pages);
	if (ph->keeper >= 0 && call_new(pages + ph->keeper, 0, 1) != 1)
		wrong++;
	if (pthread_create(&t, NULL, writer, &w)) {
		perror("pthread_create");
		exit(2);
	}
	/* The writer is storing before the first call. */
	while (!w.stores)
		sched_yield();
	for (i = 0; (i < rounds || overlapped < want) && i < limit; i++) {
		slot = pages + ph->first + i % ph->slots * SLOT_SIZE;
		w.slot = slot;
		/* Stores counted from the code's write to the call's return. */
		stores = w.stores;
		if (call_new(slot, i, ph->incs) != i + ph->incs)
			wrong++;
		if (w.stores != stores)
			overlapped++;
	}
	w.stop = 1;
	pthread_join(t, NULL);
	check(!wrong, "%s: %lu calls of freshly written code, %lu returned another value",
	      ph->name, i, wrong);
	check(overlapped >= want,
	      "%s: the writer on CPU 1 stored during %lu of the %lu calls (%lu wanted%s)",
	      ph->name, overlapped, i, want,
	      overlapped < want ? "; the limit of calls ended the phase" : "");
}

/* Whether phase @name is to run: all of them, or those named after ROUNDS. */
static int wanted(const char *name, int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return argc <= 2;
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
	const unsigned int n = sizeof(phases) / sizeof(phases[0]);
	uint8_t *pages = mmap(NULL, n * 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	unsigned int i, ran = 0;

	if (pages == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pin(0);
	for (i = 0; i < n; i++) {
		if (!wanted(phases[i].name, argc, argv))
			continue;
		run(pages + i * 2 * PAGE, &phases[i], rounds);
		ran++;
	}
	check(ran && ran >= (unsigned int)argc - 2, "%u phases ran%s", ran,
	      argc > 2 ? ", those named" : "");
	return tap_end();
}
