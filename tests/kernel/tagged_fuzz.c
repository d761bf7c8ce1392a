// SPDX-License-Identifier: GPL-2.0
/*
 * tagged_fuzz SEED SECONDS [WORKERS]: randomized use of the tagged address
 * ABI (Documentation/arch/x86/tagged-addr.rst), checked against a model.
 *
 * WORKERS processes (default: CPUs + 1) each run random operations for
 * SECONDS, and on until the run has covered what it must (below): enable, disable and query through prctl() and
 * arch_prctl(), tagged dereferences, fork, exec, vfork, threads, moves to
 * another CPU, mappings above 47 bits with 5-level paging, and system
 * calls from a table of uaccess paths (io_uring included) given tagged,
 * untagged, bit-63, kernel and aliased pointers. Worker 0 also flips
 * abi.tagged_addr_disabled. Each process keeps a model of its own mode
 * and checks every result against what the ABI allows in that state.
 * The model knows both geometries: six bits at 57 (LAM_U57, UAI) for
 * requests of 1 to 6 bits, and LAM_U48's fifteen at 48 for 7 to 15 on LAM
 * (EINVAL on UAI; EBUSY with 5-level paging while something is mapped
 * above 47 bits, which a LAM_U48 mm then never maps); the other requests
 * are invalid (0, 16, 64, negative).
 *
 * The seed comes first in the output. What it fixes: each process's
 * sequence of operation kinds and arguments. What it does not: with
 * several processes, which of them runs when, and so the state each one
 * meets (the sysctl worker 0 flips, a child's fork point, what a
 * migration interleaves with). One process (WORKERS 1) replays its
 * operations exactly; a multi-process failure replays only as often as
 * the same interleaving recurs, so its report names the check and the
 * process, not a step to replay. TAGGED_EXPECT=lam|uai|none (required,
 * from the host) says what the CPU has; the kernel's answer to
 * ARCH_GET_MAX_TAG_BITS must agree.
 *
 * Every result is checked. A call whose answer depends on the sysctl and
 * that overlapped one of worker 0's writes is checked against what the ABI
 * allows under either value (the writer only ever toggles between the two);
 * the others against the value in force. So that the sysctl's effect is
 * tested and not only tolerated, each such kind of call must have been
 * checked against a known value MIN_KNOWN times with the sysctl clear and
 * as often with it set. Every operation kind must have done its work (a
 * fork at the depth limit, say, does nothing and is not counted). Prints
 * TAP; exits non-zero on a failure.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"
#include "../lib/uaccess_paths.h"

enum backend { NONE, LAM, UAI };

enum op {
	OP_ENABLE_PRCTL, OP_ENABLE_ARCH, OP_DISABLE, OP_QUERY, OP_MAX_BITS,
	OP_UNTAG_MASK, OP_UACCESS, OP_DEREF, OP_FORK, OP_EXEC, OP_VFORK,
	OP_THREAD, OP_MIGRATE, OP_HIGH_MAP, OP_SYSCTL, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"enable_prctl", "enable_arch", "disable", "query", "max_bits",
	"untag_mask", "uaccess", "deref", "fork", "exec", "vfork", "thread",
	"migrate", "high_map", "sysctl",
};

/* Failures of one kind. */
struct failure_kind {
	unsigned long hash;
	long count;
	char first[160];
};

#define NR_KINDS 32

/*
 * Per kind of call whose answer depends on the sysctl: how often it was
 * checked against abi.tagged_addr_disabled = 0 and = 1, and against both
 * (it raced with a write). A floor on the first two, not a rate: the
 * rarest, vfork, is checked a few dozen times at each value in 10 s on two
 * emulated CPUs (every run prints the table), the others hundreds; what
 * the host does only stretches the run, so below the floor a value has not
 * been exercised, whatever the host did.
 */
#define MIN_KNOWN	5

/* Shared by every process of the run: a memfd, so it survives exec. */
struct shared {
	long passed, failed;
	struct failure_kind kinds[NR_KINDS];
	long ops[NR_OPS];	/* operations that did their work */
	long known[NR_OPS][2], raced[NR_OPS];
	unsigned long seq;	/* odd while worker 0 changes the sysctl */
	int sysctl;		/* abi.tagged_addr_disabled as last written */
	int backend, la57, nr_cpus;
	int raised;		/* LAM's user limit at 2^63 - PAGE_SIZE */
	time_t deadline;	/* SECONDS from the start */
	time_t give_up;		/* a hang guard: GIVE_UP times SECONDS */
};

static struct shared *sh;

#define SYSCTL		"/proc/sys/abi/tagged_addr_disabled"
#define KERNEL_TEXT	0xffffffff81000000UL
#define ABOVE_47	(1UL << 50)
#define HIGH_WINDOW	(1UL << 40)	/* where op_high_map() keeps its mappings */
/* LIST_POISON1's page as UAI would see it from the kernel: bits 63:57 cleared */
#define POISON_ALIAS	((0xdead000000000100UL & ((1UL << 57) - 1)) & ~4095UL)

/* The model: what this process's mode must be. */
static struct {
	int tagged;
	int wide;	/* tagged with LAM_U48 */
	int threads;	/* 0: never had threads; 1: has or had; 2: may have (forked) */
	int high;	/* mappings above 47 bits */
	int depth;	/* forks and execs from the worker */
	int worker;
	pthread_t thread;
	int thread_running;
} me;

/* Per thread: a random stream, a name for the log, an op count. */
static __thread unsigned long rng;
static __thread char who[64];
static __thread long op_nr;
static __thread struct uctx ctx;
static __thread int ctx_ready;

static unsigned long rnd(unsigned long n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 0x2545f4914f6cdd1dUL >> 11) % n;
}

static void seed_rng(unsigned long seed)
{
	rng = seed * 0x9e3779b97f4a7c15UL + 1;
	rnd(1);
}

static void report(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(int ok, const char *fmt, ...)
{
	unsigned long h = 5381;
	struct failure_kind *k;
	const char *c;
	char msg[160];
	va_list ap;
	int i;

	if (ok) {
		__atomic_add_fetch(&sh->passed, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&sh->failed, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A kind: the message without its numbers (and hex addresses). */
	for (c = msg; *c; c++) {
		if (c[0] == '0' && c[1] == 'x')
			for (c += 2; isxdigit(c[0]) && isxdigit(c[1]); c++)
				;
		else if (!isdigit(*c))
			h = h * 33 + *c;
	}
	for (i = 0; i < NR_KINDS; i++) {
		unsigned long none = 0;

		k = &sh->kinds[i];
		if (__atomic_load_n(&k->hash, __ATOMIC_ACQUIRE) == h ||
		    __atomic_compare_exchange_n(&k->hash, &none, h, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	/* The first three of each kind, with who made the call. */
	if (i < NR_KINDS && __atomic_fetch_add(&k->count, 1, __ATOMIC_RELAXED) < 3) {
		if (!k->first[0])
			snprintf(k->first, sizeof(k->first), "%s", msg);
		printf("# FAIL %s op %ld: %s\n", who, op_nr, msg);
	}
}

/* The model, for messages. */
static const char *mode_name(void)
{
	return !me.tagged ? "untagged" : me.wide ? "LAM_U48" : "tagged";
}

/* @met: the sysctl's value during the call, -1 if a write overlapped it. */
static const char *state(int met)
{
	static __thread char buf[80];

	snprintf(buf, sizeof(buf), "%s, threads %d, high %d, sysctl %s",
		 mode_name(), me.threads, me.high,
		 met < 0 ? "written during the call" : met ? "1" : "0");
	return buf;
}

/* The geometry of the model's mode, once tagged. */
static int mode_bits(void)
{
	return me.wide ? U48_TAG_BITS : TAG_BITS;
}

static int mode_shift(void)
{
	return me.wide ? U48_TAG_SHIFT : TAG_SHIFT;
}

/* The most bits a request may ask for on this backend. */
static int max_request(void)
{
	return sh->backend == LAM ? U48_TAG_BITS : TAG_BITS;
}

/* A request for @bits gets LAM_U48, which keeps the mm below 47 bits. */
static int wants_wide(long bits)
{
	return sh->backend == LAM && bits > TAG_BITS;
}

/*
 * After a reported failure, the model follows the kernel: one wrong result
 * is reported once, not again at every later call of the process.
 */
static void learn_mode(void)
{
	int nr = 0;

	me.tagged = prctl(PR_GET_TAGGED_ADDR_CTRL, &nr, 0, 0, 0) == PR_TAGGED_ADDR_ENABLE;
	me.wide = me.tagged && nr == U48_TAG_BITS;
}

/* errno sets: bit 0 is success, bit e errno e. */
#define OK	1UL
#define E(e)	(1UL << (e))

static long ret(long r)
{
	return r < 0 ? -errno : r;
}

static int allowed(long r, unsigned long want)
{
	return r <= 0 && r > -64 && (E(-r) & want);
}

/* A set of small values, as errno sets are: bit v is value v. */
static int in_set(unsigned long v, unsigned long set)
{
	return v < 64 && (1UL << v & set);
}

/* What the ABI allows with the sysctl as met: @w0 at 0, @w1 at 1, or either. */
static unsigned long either(int met, unsigned long w0, unsigned long w1)
{
	return met < 0 ? w0 | w1 : met ? w1 : w0;
}

/*
 * The sysctl worker 0 may be changing: take seq before the call, and after
 * it the value the call met, 0 or 1, or -1 if a write overlapped the call
 * (seq odd before, or moved), for which either value is possible.
 */
static unsigned long sysctl_begin(int *val)
{
	unsigned long s = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);

	*val = __atomic_load_n(&sh->sysctl, __ATOMIC_ACQUIRE);
	return s;
}

static int sysctl_met(enum op op, unsigned long s, int val)
{
	if (!(s & 1) && __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE) == s) {
		__atomic_add_fetch(&sh->known[op][val], 1, __ATOMIC_RELAXED);
		return val;
	}
	__atomic_add_fetch(&sh->raced[op], 1, __ATOMIC_RELAXED);
	return -1;
}

/*
 * What an enable by an untagged process may fail with, valid request;
 * @wide: it asks for LAM_U48, which like UAI needs nothing mapped above
 * 47 bits.
 */
static unsigned long untagged_enable_errors(int disabled, int wide)
{
	int below_47 = (sh->backend == UAI || wide) && sh->la57 && me.high;
	unsigned long want = 0;

	if (sh->backend == NONE)
		return E(ENODEV);
	if (disabled)
		want |= E(EINVAL);
	if (me.threads)
		want |= E(EBUSY);
	if (below_47)
		want |= E(EBUSY);
	if (me.threads == 2 && !disabled && !below_47)
		want |= OK;	/* a fork of a threaded process: either */
	return want ? want : OK;
}

static unsigned long enable_prctl_want(int disabled, int valid, int asked, int wide)
{
	if (sh->backend == NONE)
		return E(ENODEV) | (valid ? 0 : E(EINVAL));
	if (!valid)	/* the size, or untagged the sysctl's refusal */
		return E(EINVAL);
	if (me.tagged)	/* again: 0 if the mode has the bits asked */
		return asked <= mode_bits() ? OK : E(EBUSY);
	return untagged_enable_errors(disabled, wide);
}

static int op_enable_prctl(void)
{
	/* The size in *nr_bits (-100: NULL), or one time in four in RISC-V's
	 * PR_PMLEN field with nr_bits NULL; 0 there asks for none, and a
	 * size there needs offset: bit 63 is no tag, as the field has it. */
	static const int choice[] = { -100, 6, 6, 1, 3, 7, 15, 9, 0, 16, -1 };
	static const int pmlens[] = { 0, 1, 6, 7, 15, 16, 127 };
	int pm = !rnd(4) ? pmlens[rnd(7)] : -1;
	int nr = pm >= 0 ? -100 : choice[rnd(11)], off = -1, disabled;
	int *pnr = nr == -100 ? NULL : &nr, *poff = rnd(2) ? &off : NULL;
	int req = nr, asked = pnr ? nr : pm > 0 ? pm : 0;
	int valid = pnr ? nr >= 1 && nr <= max_request() :
			  asked <= max_request() && (pm <= 0 || poff);
	int wide = wants_wide(asked);
	unsigned long flags = PR_TAGGED_ADDR_ENABLE | (pm > 0 ? PMLEN(pm) : 0);
	unsigned long want, s = sysctl_begin(&disabled);
	long r = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, flags, pnr, poff, 0));
	int met = sysctl_met(OP_ENABLE_PRCTL, s, disabled);

	want = either(met, enable_prctl_want(0, valid, asked, wide),
		      enable_prctl_want(1, valid, asked, wide));
	report(allowed(r, want), "prctl enable nr_bits %d%s, PR_PMLEN %d: %ld (%s)",
	       req, pnr ? "" : " (NULL)", pm > 0 ? pm : 0, r, state(met));
	if (r == 0) {
		if (!me.tagged)
			me.wide = wide;
		me.tagged = 1;
		report((!pnr || nr == mode_bits()) &&
		       (!poff || off == mode_shift()),
		       "prctl enable reports %d bits at %d (%s)", nr, off,
		       mode_name());
	} else {
		report(nr == req && off == -1,
		       "failed prctl enable changed nr_bits %d->%d, offset to %d",
		       req, nr, off);
	}
	return 1;
}

static unsigned long enable_arch_want(int disabled, int valid, unsigned long bits)
{
	if (sh->backend == NONE)
		return E(ENODEV) | (valid ? 0 : E(EINVAL));
	if (me.tagged)	/* upstream's EBUSY on a second enable, any size */
		return disabled ? E(EINVAL) : E(EBUSY);
	if (!valid)	/* a threaded mm is refused before the size */
		return E(EINVAL) | (me.threads ? E(EBUSY) : 0);
	return untagged_enable_errors(disabled, wants_wide(bits));
}

static int op_enable_arch(void)
{
	static const unsigned long choice[] = { 6, 6, 6, 1, 3, 7, 15, 0, 16, 64 };
	unsigned long bits = choice[rnd(10)], want;
	int valid = bits >= 1 && bits <= (unsigned long)max_request(), disabled;
	unsigned long s = sysctl_begin(&disabled);
	long r = ret(arch_prctl(ARCH_ENABLE_TAGGED_ADDR, bits));
	int met = sysctl_met(OP_ENABLE_ARCH, s, disabled);

	want = either(met, enable_arch_want(0, valid, bits),
		      enable_arch_want(1, valid, bits));
	report(allowed(r, want), "arch_prctl enable %lu bits: %ld (%s)", bits, r,
	       state(met));
	if (r == 0 && !me.tagged) {
		me.tagged = 1;
		me.wide = wants_wide(bits);
	}
	return 1;
}

static int op_disable(void)
{
	long r = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));

	report(allowed(r, me.tagged ? E(EBUSY) : OK | E(ENODEV)),
	       "disable: %ld (%s)", r, me.tagged ? "tagged" : "untagged");
	return 1;
}

/*
 * What PR_GET_TAGGED_ADDR_CTRL offers an untagged process with the sysctl
 * at @disabled: the most a request may ask for (ARCH_GET_MAX_TAG_BITS
 * says the default mode's six instead).
 */
static unsigned long offered_bits(int disabled)
{
	return 1UL << (sh->backend != NONE && !disabled ? max_request() : 0);
}

/* Where the field of an offer of @nr bits lies: 0 for none. */
static int offered_shift(int nr)
{
	return !nr ? 0 : nr == U48_TAG_BITS ? U48_TAG_SHIFT : TAG_SHIFT;
}

static int op_query(void)
{
	int nr = -1, off = -1, disabled;
	unsigned long offer, s = sysctl_begin(&disabled);
	long r = ret(prctl(PR_GET_TAGGED_ADDR_CTRL, &nr, &off, 0, 0));
	int met = sysctl_met(OP_QUERY, s, disabled);

	offer = either(met, offered_bits(0), offered_bits(1));
	if (me.tagged)
		report(r == PR_TAGGED_ADDR_ENABLE && nr == mode_bits() &&
		       off == mode_shift(),
		       "query while %s: %ld, %d bits at %d", mode_name(), r, nr, off);
	else
		report(r == 0 && nr >= 0 && in_set(nr, offer) &&
		       off == offered_shift(nr),
		       "query while untagged (%s): %ld, %d bits (want set %#lx), offset %d",
		       state(met), r, nr, offer, off);
	return 1;
}

/*
 * What ARCH_GET_MAX_TAG_BITS may say with the sysctl at @disabled: a tagged
 * process keeps its grant, and may be told either.
 */
static unsigned long max_bits_want(int disabled)
{
	if (sh->backend == NONE)
		return 1UL << 0;
	if (!disabled)
		return 1UL << TAG_BITS;
	return 1UL << 0 | (me.tagged ? 1UL << TAG_BITS : 0);
}

static int op_max_bits(void)
{
	unsigned long bits = 99, want;
	int disabled;
	unsigned long s = sysctl_begin(&disabled);
	long r = ret(arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&bits));
	int met = sysctl_met(OP_MAX_BITS, s, disabled);

	want = either(met, max_bits_want(0), max_bits_want(1));
	report(r == 0 && in_set(bits, want),
	       "ARCH_GET_MAX_TAG_BITS (%s): %ld, %lu bits (want set %#lx)",
	       state(met), r, bits, want);
	return 1;
}

static int op_untag_mask(void)
{
	unsigned long want = !me.tagged ? ~0UL : me.wide ? ~U48_TAG_MASK : ~TAG_MASK;
	unsigned long mask = 0;
	long r = ret(arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask));

	report(r == 0 && mask == want, "ARCH_GET_UNTAG_MASK (%s): %ld, %#lx",
	       mode_name(), r, mask);
	return 1;
}

/*
 * @p with a random LAM_U48 tag: bits 62:57 any, and at least one of 56:48
 * set, which only LAM_U48 ignores.
 */
static void *wide_tag_ptr(const void *p)
{
	uint64_t low = 1 + rnd((1UL << (TAG_SHIFT - U48_TAG_SHIFT)) - 1);

	return (void *)(((uintptr_t)p & ~U48_TAG_MASK) |
			(uint64_t)rnd(1UL << TAG_BITS) << TAG_SHIFT |
			low << U48_TAG_SHIFT);
}

/*
 * Whether @p passes the user-limit check (access_ok()) that a check-only
 * path makes: LAM on an Intel CPU raises the limit to 2^63 - PAGE_SIZE
 * and compares the pointer as it is; UAI, and LAM on another vendor's
 * CPU, untag first (a tagged process's tag field: 62:57, 62:48 for
 * LAM_U48) and keep the top of the address space, 2^56 - PAGE_SIZE with
 * 5-level paging, 2^47 - PAGE_SIZE without.
 */
static int passes_user_limit(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	if (sh->raised)
		return a <= (1UL << 63) - 4096;
	if (sh->backend != NONE && me.tagged)
		a &= me.wide ? ~U48_TAG_MASK : ~TAG_MASK;
	return a <= (1UL << (sh->la57 ? 56 : 47)) - 4096;
}

/* A pointer of a random kind; *good says whether a call may succeed. */
static void *pick_pointer(void *obj, int *good, const char **kind)
{
	unsigned long t = 1 + rnd(63);

	*good = 0;
	switch (rnd(7)) {
	case 0:
		*good = 1;
		*kind = "untagged";
		return obj;
	case 1:
		*good = me.tagged;
		*kind = "tagged";
		return tag_ptr(obj, t);
	case 2:
		*kind = "bit 63";
		return (void *)((uintptr_t)tag_ptr(obj, rnd(64)) | 1UL << 63);
	case 3:
		*kind = "kernel";
		return tag_ptr((void *)(rnd(2) ? KERNEL_TEXT : 0xffff888000000000UL),
			       rnd(64));
	case 4:
		*kind = "alias";	/* what UAI would access as the direct map */
		return tag_ptr((void *)0x01ff888000000000UL, rnd(64));
	case 5:
		*good = me.tagged && me.wide;
		*kind = "LAM_U48-tagged";
		return wide_tag_ptr(obj);
	default:
		*good = me.tagged;
		*kind = "tagged";
		return tag_ptr(obj, 0x3f);
	}
}

static int op_uaccess(void)
{
	const struct uaccess_path *up = &uaccess_paths[rnd(NR_UACCESS_PATHS)];
	const char *kind;
	int good;
	void *p;
	long r;

	if (!ctx_ready) {
		if (uctx_init(&ctx)) {
			report(0, "uctx_init: %m");
			return 1;
		}
		ctx_ready = 1;
	}
	p = pick_pointer(ctx.obj, &good, &kind);
	errno = 0;
	r = up->call(&ctx, p);
	if (good)
		report(r >= 0, "%s with %s %p (%s): %ld", up->name, kind, p,
		       mode_name(), r);
	else if (up->check_only && passes_user_limit(p))
		report(r == 0, "%s with %s %p (%s): %ld, want 0 (it passes the user limit)",
		       up->name, kind, p, mode_name(), r);
	else
		report(r == -EFAULT, "%s with %s %p (%s): %ld, want -EFAULT",
		       up->name, kind, p, mode_name(), r);
	return 1;
}

/* A tag at 62:57, which either mode ignores, or one LAM_U48 alone does. */
static int op_deref(void)
{
	static volatile uint64_t v;
	int wide = rnd(2);
	volatile uint64_t *p = wide ? wide_tag_ptr((void *)&v) :
				      tag_ptr((void *)&v, 1 + rnd(63));
	int r = deref_in_child(p, &v);
	int works = me.tagged && (!wide || me.wide);

	report(r == (works ? 0 : SIGSEGV), "dereference of %p (%s): %d", p,
	       mode_name(), r);
	return 1;
}

static int op_migrate(void)
{
	int cpu = rnd(sh->nr_cpus);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	report(!sched_setaffinity(0, sizeof(set), &set) && sched_getcpu() == cpu,
	       "move to CPU %d: on %d", cpu, sched_getcpu());
	return 1;
}

/*
 * 5-level paging: above 47 bits, which a UAI mm must not map (it has no
 * user-half alias of a kernel pointer then), nor a LAM_U48 one (its bits
 * 56:48 are tags); LAM_U57 maps there as before.
 */
static int op_high_map(void)
{
	void *p;

	if (!sh->la57)
		return 0;
	if (me.high && rnd(2)) {	/* unmap them all again */
		report(!munmap((void *)ABOVE_47, HIGH_WINDOW), "munmap above 47 bits: %m");
		me.high = 0;
		return 1;
	}
	p = mmap((void *)(ABOVE_47 + (rnd(256) << 20)), 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (me.tagged && sh->backend == UAI) {
		void *a = mmap((void *)POISON_ALIAS, 4096, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		report(a == MAP_FAILED && errno == ENOMEM,
		       "UAI: map LIST_POISON1's alias %#lx: %p", POISON_ALIAS, a);
		report(p != MAP_FAILED && (uintptr_t)p < 1UL << 47,
		       "UAI: hint above 47 bits mapped at %p", p);
		if (a != MAP_FAILED)
			munmap(a, 4096);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		return 1;
	}
	if (me.tagged && me.wide) {
		report(p != MAP_FAILED && (uintptr_t)p < 1UL << 47,
		       "LAM_U48: hint above 47 bits mapped at %p", p);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		return 1;
	}
	report(p != MAP_FAILED && (uintptr_t)p >= 1UL << 47,
	       "hint above 47 bits (%s) mapped at %p", mode_name(), p);
	/* Keep it only where the munmap above finds it again. */
	if (p != MAP_FAILED && (uintptr_t)p - ABOVE_47 < HIGH_WINDOW)
		me.high = 1;
	else if (p != MAP_FAILED)
		munmap(p, 4096);
	return 1;
}

/* 4c: a vfork child shares its parent's mm and must not enable on it. */
static unsigned long vfork_want(int disabled)
{
	return sh->backend == NONE ? E(ENODEV) : E(EBUSY) | (disabled ? E(EINVAL) : 0);
}

static int op_vfork(void)
{
	static volatile long r_prctl, r_arch;
	int disabled, met, tagged;
	unsigned long want_arch, want, s = sysctl_begin(&disabled);
	pid_t pid = vfork();

	if (pid == 0) {
		r_prctl = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0));
		r_arch = ret(arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
		report(0, "vfork: %m");
		return 1;
	}
	met = sysctl_met(OP_VFORK, s, disabled);
	want = either(met, vfork_want(0), vfork_want(1));
	want_arch = want;
	if (me.tagged)
		want |= OK;	/* the parent's grant satisfies it */
	report(allowed(r_prctl, want) && allowed(r_arch, want_arch),
	       "vfork child enables (%s): prctl %ld, arch_prctl %ld",
	       state(met), r_prctl, r_arch);
	tagged = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) == PR_TAGGED_ADDR_ENABLE;
	report(tagged == me.tagged, "vfork child changed its parent's mode");
	if (tagged != me.tagged)
		learn_mode();
	return 1;
}

/* Worker 0 only: flip abi.tagged_addr_disabled. */
static int op_sysctl(void)
{
	int v = !sh->sysctl, fd;

	if (me.worker || me.depth || sh->backend == NONE)
		return 0;
	fd = open(SYSCTL, O_WRONLY);
	__atomic_add_fetch(&sh->seq, 1, __ATOMIC_ACQ_REL);
	report(fd >= 0 && write(fd, v ? "1" : "0", 1) == 1, "write %d to " SYSCTL ": %m", v);
	__atomic_store_n(&sh->sysctl, v, __ATOMIC_RELEASE);
	__atomic_add_fetch(&sh->seq, 1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
	return 1;
}

static void run(long ops);

static void *thread_main(void *arg)
{
	unsigned long seed = (unsigned long)arg;

	seed_rng(seed);
	snprintf(who, sizeof(who), "w%d/d%d/t%lx", me.worker, me.depth, seed & 0xffff);
	op_nr = 0;
	ctx_ready = 0;
	run(50 + rnd(100));
	if (ctx_ready)
		uctx_fini(&ctx);
	return NULL;
}

/* A thread beside this one, sharing the mm: enables must fail from now on. */
static int op_thread(void)
{
	if (me.thread_running) {
		pthread_join(me.thread, NULL);
		me.thread_running = 0;
	}
	me.threads = 1;
	if (pthread_create(&me.thread, NULL, thread_main, (void *)rnd(~0UL)))
		report(0, "pthread_create: %m");
	else
		me.thread_running = 1;
	return 1;
}

static int is_main_thread(void)
{
	return getpid() == gettid();
}

static void child_start(const char *what)
{
	char buf[sizeof(who)];

	snprintf(buf, sizeof(buf), "%.40s/%s%ld", who, what, op_nr);
	memcpy(who, buf, sizeof(who));
	me.depth++;
	me.thread_running = 0;	/* threads do not survive fork */
	if (ctx_ready)
		uctx_fini(&ctx);	/* the parent's pipes: not ours to drain */
	ctx_ready = 0;
	op_nr = 0;
}

static int live_children;

static int op_fork(void)
{
	unsigned long seed = rnd(~0UL);
	pid_t pid;

	if (!is_main_thread() || me.depth >= 3 || live_children >= 2)
		return 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		seed_rng(seed);
		child_start("f");
		live_children = 0;
		if (me.threads)
			me.threads = 2;	/* whether fork copies "had threads" is open */
		run(100 + rnd(200));
		exit(0);
	}
	if (pid > 0)
		live_children++;
	else
		report(0, "fork: %m");
	return 1;
}

static int memfd;

static int op_exec(void)
{
	char fd[16], seed[32], depth[16], worker[16];
	pid_t pid;

	if (!is_main_thread() || me.depth >= 3 || live_children >= 2)
		return 0;
	snprintf(fd, sizeof(fd), "%d", memfd);
	snprintf(seed, sizeof(seed), "%lu", rnd(~0UL));
	snprintf(depth, sizeof(depth), "%d", me.depth + 1);
	snprintf(worker, sizeof(worker), "%d", me.worker);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "tagged_fuzz", "--exec", fd, seed, depth,
		      worker, who, NULL);
		_exit(99);
	}
	if (pid > 0)
		live_children++;
	else
		report(0, "fork for exec: %m");
	return 1;
}

static void reap(int block)
{
	int status;
	pid_t pid;

	while (live_children && (pid = waitpid(-1, &status, block ? 0 : WNOHANG)) > 0) {
		live_children--;
		report(WIFEXITED(status) && !WEXITSTATUS(status),
		       "child %d ended with status %#x", pid, status);
	}
}

/* Each returns whether it did its work: 0 for a no-op (a limit reached). */
static int (*const ops[NR_OPS])(void) = {
	op_enable_prctl, op_enable_arch, op_disable, op_query, op_max_bits,
	op_untag_mask, op_uaccess, op_deref, op_fork, op_exec, op_vfork,
	op_thread, op_migrate, op_high_map, op_sysctl,
};

/* Relative frequencies; threads skip what only a main thread may do. */
static const int weight[NR_OPS] = { 6, 4, 2, 6, 3, 3, 30, 4, 2, 1, 2, 2, 4, 3, 1 };

/*
 * The one that flips the sysctl (worker 0's main thread) does so about
 * once in seven operations: its forks, vforks and dereferences in a child
 * make it the slowest thread of the run (a few hundred operations in 10 s
 * under TCG), and at the weight of the rest it flipped three times in such
 * a run, some seeds never.
 */
#define SYSCTL_WEIGHT	12

static int op_weight(int op)
{
	if (op == OP_SYSCTL && !me.worker && !me.depth && is_main_thread())
		return SYSCTL_WEIGHT;
	return weight[op];
}

static enum op pick_op(void)
{
	int total = 0, i, w;

	for (i = 0; i < NR_OPS; i++)
		total += op_weight(i);
	w = rnd(total);
	for (i = 0; w >= op_weight(i); i++)
		w -= op_weight(i);
	return i;
}

/*
 * The run lasts SECONDS and then until it covered what it must: every
 * operation kind that applies did its work, and each sysctl-dependent
 * call was checked MIN_KNOWN times at each value. A host that takes the
 * CPUs away only makes it longer; GIVE_UP times SECONDS guards against a
 * run that can never get there (reported as a failure, not a flake: under
 * no load seen did coverage take more than SECONDS).
 */
#define GIVE_UP	20

static long short_kinds(int print);

static int run_over(void)
{
	time_t now = time(NULL);

	return now >= sh->give_up || (now >= sh->deadline && !short_kinds(0));
}

static void run(long nr_ops)
{
	while (nr_ops-- && !run_over()) {
		enum op op = pick_op();

		if (!is_main_thread() && (op == OP_THREAD || op == OP_FORK ||
					  op == OP_EXEC || op == OP_VFORK ||
					  op == OP_DEREF || op == OP_HIGH_MAP ||
					  op == OP_SYSCTL))
			continue;
		op_nr++;
		if (ops[op]())
			__atomic_add_fetch(&sh->ops[op], 1, __ATOMIC_RELAXED);
		if (is_main_thread())
			reap(0);
	}
	if (is_main_thread()) {
		if (me.thread_running)
			pthread_join(me.thread, NULL);
		me.thread_running = 0;
		reap(1);
	}
}

/* Operations that can do their work on this boot. */
static int op_applies(enum op op)
{
	if (op == OP_HIGH_MAP)
		return sh->la57;
	if (op == OP_SYSCTL)
		return sh->backend != NONE;
	return 1;
}

/* Operations whose answer depends on abi.tagged_addr_disabled. */
static int sysctl_sensitive(enum op op)
{
	return op == OP_ENABLE_PRCTL || op == OP_ENABLE_ARCH || op == OP_QUERY ||
	       op == OP_MAX_BITS || op == OP_VFORK;
}

/*
 * What the run has not covered yet: operation kinds that apply and did
 * nothing, and sysctl-dependent kinds checked fewer than MIN_KNOWN times
 * at a value (1 only where there is a backend to flip it for); printed
 * if @print.
 */
static long short_kinds(int print)
{
	int i, v, values = sh->backend == NONE ? 1 : 2;
	long n = 0;

	for (i = 0; i < NR_OPS; i++) {
		if (op_applies(i) && !__atomic_load_n(&sh->ops[i], __ATOMIC_RELAXED)) {
			if (print)
				printf("# no %s did its work\n", op_names[i]);
			n++;
		}
		if (!sysctl_sensitive(i))
			continue;
		for (v = 0; v < values; v++) {
			long k = __atomic_load_n(&sh->known[i][v], __ATOMIC_RELAXED);

			if (k >= MIN_KNOWN)
				continue;
			if (print)
				printf("# %s checked %ld times with the sysctl at %d\n",
				       op_names[i], k, v);
			n++;
		}
	}
	return n;
}

static int map_shared(int fd)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return sh == MAP_FAILED ? -1 : 0;
}

/* After exec: a fresh image, untagged whatever its parent was. */
static int exec_child(char **argv)
{
	memfd = atoi(argv[2]);
	if (map_shared(memfd))
		return 98;
	seed_rng(strtoul(argv[3], NULL, 10));
	me.depth = atoi(argv[4]);
	me.worker = atoi(argv[5]);
	snprintf(who, sizeof(who), "%.30s/x", argv[6]);
	op_query();	/* exec dropped the mode */
	run(100 + rnd(200));
	return 0;
}

/* What the host says the CPU offers: TAGGED_EXPECT, required; -1 if unset. */
static int backend(void)
{
	const char *e = getenv("TAGGED_EXPECT");

	if (!e)
		return -1;
	return !strcmp(e, "lam") ? LAM : !strcmp(e, "uai") ? UAI :
	       !strcmp(e, "none") ? NONE : -1;
}

static int read_sysctl(void)
{
	char c = '0';
	int fd = open(SYSCTL, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '0';
		close(fd);
	}
	return c == '1';
}

static int has_la57(void)
{
	void *p = mmap((void *)ABOVE_47, 4096, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, 4096);
	return (uintptr_t)p >= 1UL << 47;
}

int main(int argc, char **argv)
{
	unsigned long seed;
	unsigned long max_bits = 0;
	long missing;
	time_t start;
	int seconds, workers, i;
	cpu_set_t set;

	if (argc == 7 && !strcmp(argv[1], "--exec"))
		return exec_child(argv);
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: tagged_fuzz SEED SECONDS [WORKERS]\n");
		return 2;
	}
	seed = strtoul(argv[1], NULL, 0);
	seconds = atoi(argv[2]);
	printf("# tagged_fuzz seed %lu, %d s (replay: tagged_fuzz %lu %d)\n",
	       seed, seconds, seed, seconds);
	fflush(stdout);

	memfd = memfd_create("tagged_fuzz", 0);
	if (memfd < 0 || ftruncate(memfd, sizeof(*sh)) || map_shared(memfd))
		return 1;
	sh->backend = backend();
	if (sh->backend < 0) {
		check(0, "the host says what the CPU offers: TAGGED_EXPECT=lam|uai|none");
		return tap_end();
	}
	arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&max_bits);
	sh->la57 = has_la57();
	sh->raised = sh->backend == LAM && cpu_is_intel();
	sh->nr_cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	start = time(NULL);
	sh->deadline = start + seconds;
	sh->give_up = time(NULL) + (time_t)GIVE_UP * seconds;
	sh->sysctl = read_sysctl();
	workers = argc == 4 ? atoi(argv[3]) : sh->nr_cpus + 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# backend %s, %s-level paging, %d CPUs, %d workers, user limit %s\n",
	       sh->backend == LAM ? "lam" : sh->backend == UAI ? "uai" : "none",
	       sh->la57 ? "5" : "4", sh->nr_cpus, workers,
	       sh->raised ? "raised" : "exact");

	for (i = 0; i < workers; i++) {
		if (fork() == 0) {
			me.worker = i;
			seed_rng(seed * 1000003 + i);
			snprintf(who, sizeof(who), "w%d", i);
			run(-1);
			exit(0);
		}
	}
	live_children = workers;
	reap(1);
	if (sh->backend != NONE) {	/* worker 0 may have left it set */
		int fd = open(SYSCTL, O_WRONLY);

		if (fd < 0 || write(fd, "0", 1) != 1)
			report(0, "reset " SYSCTL ": %m");
		if (fd >= 0)
			close(fd);
	}
	printf("# %-12s %8s %8s %8s %8s\n", "operation", "did", "sysctl 0",
	       "sysctl 1", "raced");
	for (i = 0; i < NR_OPS; i++)
		printf("# %-12s %8ld %8ld %8ld %8ld\n", op_names[i], sh->ops[i],
		       sh->known[i][0], sh->known[i][1], sh->raced[i]);
	for (i = 0; i < NR_KINDS && sh->kinds[i].hash; i++)
		printf("# %6ld failed like: %s\n", sh->kinds[i].count, sh->kinds[i].first);
	printf("# %ld checks passed, %ld failed\n", sh->passed, sh->failed);
	check(!max_bits == (sh->backend == NONE),
	      "the kernel offers tagging as TAGGED_EXPECT=%s says (%lu bits)",
	      getenv("TAGGED_EXPECT"), max_bits);
	printf("# %ld s (at least %d, then until covered; %d at most)\n",
	       (long)(time(NULL) - start), seconds, GIVE_UP * seconds);
	missing = short_kinds(1);
	check(!missing,
	      "tagged_fuzz seed %lu: every operation kind that applies did its work, each sysctl-dependent call checked %d times at each sysctl value (%ld short)",
	      seed, MIN_KNOWN, missing);
	check(sh->passed > 0 && !sh->failed,
	      "tagged_fuzz seed %lu: %ld results match the ABI, %ld do not",
	      seed, sh->passed, sh->failed);
	return tap_end();
}
