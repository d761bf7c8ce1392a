// SPDX-License-Identifier: GPL-2.0
/*
 * tagged_fuzz SEED SECONDS [WORKERS]: randomized use of the tagged address
 * ABI (Documentation/arch/x86/tagged-addr.rst), checked against a model.
 *
 * WORKERS processes (default: CPUs + 1) each run random operations until
 * SECONDS have passed: enable, disable and query through prctl() and
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
 * ARCH_GET_MAX_TAG_BITS must agree. Every operation kind must have run,
 * and fewer than 1% of the checks may be left unchecked (a call that
 * raced with the sysctl). Prints TAP; exits non-zero on a failure.
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

/* Shared by every process of the run: a memfd, so it survives exec. */
struct shared {
	long passed, failed, unchecked;
	struct failure_kind kinds[NR_KINDS];
	long ops[NR_OPS];
	unsigned long seq;	/* odd while worker 0 changes the sysctl */
	int sysctl;		/* abi.tagged_addr_disabled as last written */
	int backend, la57, nr_cpus;
	time_t deadline;
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

static const char *state(int disabled)
{
	static __thread char buf[64];

	snprintf(buf, sizeof(buf), "%s, threads %d, high %d, sysctl %d",
		 mode_name(), me.threads, me.high, disabled);
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

/* Ask the kernel for the mode, after a call the model could not follow. */
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

/*
 * The sysctl worker 0 may be changing: take seq before the call, check
 * it after; a call that raced with a change is not checked.
 */
static unsigned long sysctl_begin(int *val)
{
	unsigned long s = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);

	*val = __atomic_load_n(&sh->sysctl, __ATOMIC_ACQUIRE);
	return s;
}

static int sysctl_stable(unsigned long s)
{
	if (!(s & 1) && __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE) == s)
		return 1;
	__atomic_add_fetch(&sh->unchecked, 1, __ATOMIC_RELAXED);
	/* Learn the mode from the kernel; the next checks hold it to it. */
	learn_mode();
	return 0;
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

static void op_enable_prctl(void)
{
	/* The size in *nr_bits (-100: NULL), or one time in four in RISC-V's
	 * PR_PMLEN field with nr_bits NULL; 0 there asks for none. */
	static const int choice[] = { -100, 6, 6, 1, 3, 7, 15, 9, 0, 16, -1 };
	static const int pmlens[] = { 0, 1, 6, 7, 15, 16, 127 };
	int pm = !rnd(4) ? pmlens[rnd(7)] : -1;
	int nr = pm >= 0 ? -100 : choice[rnd(11)], off = -1, disabled;
	int *pnr = nr == -100 ? NULL : &nr, *poff = rnd(2) ? &off : NULL;
	int req = nr, asked = pnr ? nr : pm > 0 ? pm : 0;
	int valid = pnr ? nr >= 1 && nr <= max_request() : asked <= max_request();
	int wide = wants_wide(asked);
	unsigned long flags = PR_TAGGED_ADDR_ENABLE | (pm > 0 ? PMLEN(pm) : 0);
	unsigned long want, s = sysctl_begin(&disabled);
	long r = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, flags, pnr, poff, 0));

	if (!sysctl_stable(s))
		return;
	if (sh->backend == NONE)
		want = E(ENODEV) | (valid ? 0 : E(EINVAL));
	else if (!valid)	/* the size, or untagged the sysctl's refusal */
		want = E(EINVAL);
	else if (me.tagged)	/* again: 0 if the mode has the bits asked */
		want = asked <= mode_bits() ? OK : E(EBUSY);
	else
		want = untagged_enable_errors(disabled, wide);
	report(allowed(r, want), "prctl enable nr_bits %d%s, PR_PMLEN %d: %ld (%s)",
	       req, pnr ? "" : " (NULL)", pm > 0 ? pm : 0, r, state(disabled));
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
}

static void op_enable_arch(void)
{
	static const unsigned long choice[] = { 6, 6, 6, 1, 3, 7, 15, 0, 16, 64 };
	unsigned long bits = choice[rnd(10)], want;
	int valid = bits >= 1 && bits <= (unsigned long)max_request(), disabled;
	unsigned long s = sysctl_begin(&disabled);
	long r = ret(arch_prctl(ARCH_ENABLE_TAGGED_ADDR, bits));

	if (!sysctl_stable(s))
		return;
	if (sh->backend == NONE)
		want = E(ENODEV) | (valid ? 0 : E(EINVAL));
	else if (me.tagged)	/* upstream's EBUSY on a second enable, any size */
		want = disabled ? E(EINVAL) : E(EBUSY);
	else if (!valid)	/* a threaded mm is refused before the size */
		want = E(EINVAL) | (me.threads ? E(EBUSY) : 0);
	else
		want = untagged_enable_errors(disabled, wants_wide(bits));
	report(allowed(r, want), "arch_prctl enable %lu bits: %ld (%s)", bits, r,
	       state(disabled));
	if (r == 0 && !me.tagged) {
		me.tagged = 1;
		me.wide = wants_wide(bits);
	}
}

static void op_disable(void)
{
	long r = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));

	report(allowed(r, me.tagged ? E(EBUSY) : OK | E(ENODEV)),
	       "disable: %ld (%s)", r, me.tagged ? "tagged" : "untagged");
}

static void op_query(void)
{
	int nr = -1, off = -1, disabled;
	unsigned long s = sysctl_begin(&disabled);
	long r = ret(prctl(PR_GET_TAGGED_ADDR_CTRL, &nr, &off, 0, 0));
	int offer = sh->backend != NONE && !disabled ? TAG_BITS : 0;

	if (!sysctl_stable(s))
		return;
	if (me.tagged)
		report(r == PR_TAGGED_ADDR_ENABLE && nr == mode_bits() &&
		       off == mode_shift(),
		       "query while %s: %ld, %d bits at %d", mode_name(), r, nr, off);
	else
		report(r == 0 && nr == offer && off == -1,
		       "query while untagged (sysctl %d): %ld, %d bits (want %d), offset %d",
		       disabled, r, nr, offer, off);
}

static void op_max_bits(void)
{
	unsigned long bits = 99;
	int disabled;
	unsigned long s = sysctl_begin(&disabled);
	long r = ret(arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&bits));
	unsigned long want = sh->backend == NONE || (disabled && !me.tagged) ? 0 : TAG_BITS;

	if (!sysctl_stable(s))
		return;
	report(r == 0 && (bits == want || (disabled && me.tagged && bits == 0)),
	       "ARCH_GET_MAX_TAG_BITS (sysctl %d, %s): %ld, %lu bits", disabled,
	       me.tagged ? "tagged" : "untagged", r, bits);
}

static void op_untag_mask(void)
{
	unsigned long want = !me.tagged ? ~0UL : me.wide ? ~U48_TAG_MASK : ~TAG_MASK;
	unsigned long mask = 0;
	long r = ret(arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask));

	report(r == 0 && mask == want, "ARCH_GET_UNTAG_MASK (%s): %ld, %#lx",
	       mode_name(), r, mask);
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
 * path makes: LAM, where it is offered, raises the limit to 2^63 - PAGE_SIZE
 * and compares the pointer as it is; UAI untags first (bits 62:57 of a
 * tagged process's pointer) and keeps the top of the address space,
 * 2^56 - PAGE_SIZE with 5-level paging, 2^47 - PAGE_SIZE without.
 */
static int passes_user_limit(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	if (sh->backend == LAM)
		return a <= (1UL << 63) - 4096;
	if (sh->backend == UAI && me.tagged)
		a &= ~TAG_MASK;
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

static void op_uaccess(void)
{
	const struct uaccess_path *up = &uaccess_paths[rnd(NR_UACCESS_PATHS)];
	const char *kind;
	int good;
	void *p;
	long r;

	if (!ctx_ready) {
		if (uctx_init(&ctx)) {
			report(0, "uctx_init: %m");
			return;
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
}

/* A tag at 62:57, which either mode ignores, or one LAM_U48 alone does. */
static void op_deref(void)
{
	static volatile uint64_t v;
	int wide = rnd(2);
	volatile uint64_t *p = wide ? wide_tag_ptr((void *)&v) :
				      tag_ptr((void *)&v, 1 + rnd(63));
	int r = deref_in_child(p, &v);
	int works = me.tagged && (!wide || me.wide);

	report(r == (works ? 0 : SIGSEGV), "dereference of %p (%s): %d", p,
	       mode_name(), r);
}

static void op_migrate(void)
{
	int cpu = rnd(sh->nr_cpus);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	report(!sched_setaffinity(0, sizeof(set), &set) && sched_getcpu() == cpu,
	       "move to CPU %d: on %d", cpu, sched_getcpu());
}

/*
 * 5-level paging: above 47 bits, which a UAI mm must not map (it has no
 * user-half alias of a kernel pointer then), nor a LAM_U48 one (its bits
 * 56:48 are tags); LAM_U57 maps there as before.
 */
static void op_high_map(void)
{
	void *p;

	if (!sh->la57)
		return;
	if (me.high && rnd(2)) {	/* unmap them all again */
		report(!munmap((void *)ABOVE_47, HIGH_WINDOW), "munmap above 47 bits: %m");
		me.high = 0;
		return;
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
		return;
	}
	if (me.tagged && me.wide) {
		report(p != MAP_FAILED && (uintptr_t)p < 1UL << 47,
		       "LAM_U48: hint above 47 bits mapped at %p", p);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		return;
	}
	report(p != MAP_FAILED && (uintptr_t)p >= 1UL << 47,
	       "hint above 47 bits (%s) mapped at %p", mode_name(), p);
	/* Keep it only where the munmap above finds it again. */
	if (p != MAP_FAILED && (uintptr_t)p - ABOVE_47 < HIGH_WINDOW)
		me.high = 1;
	else if (p != MAP_FAILED)
		munmap(p, 4096);
}

/* 4c: a vfork child shares its parent's mm and must not enable on it. */
static void op_vfork(void)
{
	static volatile long r_prctl, r_arch;
	int disabled;
	unsigned long want_arch, want, s = sysctl_begin(&disabled);
	pid_t pid = vfork();

	if (pid == 0) {
		r_prctl = ret(prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0));
		r_arch = ret(arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
		report(0, "vfork: %m");
		return;
	}
	if (!sysctl_stable(s))
		return;
	want = sh->backend == NONE ? E(ENODEV) : E(EBUSY) | (disabled ? E(EINVAL) : 0);
	want_arch = want;
	if (me.tagged)
		want |= OK;	/* the parent's grant satisfies it */
	report(allowed(r_prctl, want) && allowed(r_arch, want_arch),
	       "vfork child enables (%s): prctl %ld, arch_prctl %ld",
	       state(disabled), r_prctl, r_arch);
	report((prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) == PR_TAGGED_ADDR_ENABLE) ==
	       me.tagged, "vfork child changed its parent's mode");
	learn_mode();
}

/* Worker 0 only: flip abi.tagged_addr_disabled. */
static void op_sysctl(void)
{
	int v = !sh->sysctl, fd;

	if (me.worker || me.depth || sh->backend == NONE)
		return;
	fd = open(SYSCTL, O_WRONLY);
	__atomic_add_fetch(&sh->seq, 1, __ATOMIC_ACQ_REL);
	report(fd >= 0 && write(fd, v ? "1" : "0", 1) == 1, "write %d to " SYSCTL ": %m", v);
	__atomic_store_n(&sh->sysctl, v, __ATOMIC_RELEASE);
	__atomic_add_fetch(&sh->seq, 1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
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
static void op_thread(void)
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

static void op_fork(void)
{
	unsigned long seed = rnd(~0UL);
	pid_t pid;

	if (!is_main_thread() || me.depth >= 3 || live_children >= 2)
		return;
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
}

static int memfd;

static void op_exec(void)
{
	char fd[16], seed[32], depth[16], worker[16];
	pid_t pid;

	if (!is_main_thread() || me.depth >= 3 || live_children >= 2)
		return;
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

static void (*const ops[NR_OPS])(void) = {
	op_enable_prctl, op_enable_arch, op_disable, op_query, op_max_bits,
	op_untag_mask, op_uaccess, op_deref, op_fork, op_exec, op_vfork,
	op_thread, op_migrate, op_high_map, op_sysctl,
};

/* Relative frequencies; threads skip what only a main thread may do. */
static const int weight[NR_OPS] = { 6, 4, 2, 6, 3, 3, 30, 4, 2, 1, 2, 2, 4, 3, 1 };

static enum op pick_op(void)
{
	int total = 0, i, w;

	for (i = 0; i < NR_OPS; i++)
		total += weight[i];
	w = rnd(total);
	for (i = 0; w >= weight[i]; i++)
		w -= weight[i];
	return i;
}

static void run(long nr_ops)
{
	while (nr_ops-- && time(NULL) < sh->deadline) {
		enum op op = pick_op();

		if (!is_main_thread() && (op == OP_THREAD || op == OP_FORK ||
					  op == OP_EXEC || op == OP_VFORK ||
					  op == OP_DEREF || op == OP_HIGH_MAP ||
					  op == OP_SYSCTL))
			continue;
		op_nr++;
		__atomic_add_fetch(&sh->ops[op], 1, __ATOMIC_RELAXED);
		ops[op]();
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
	long checks, missing = 0;
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
	sh->nr_cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	sh->deadline = time(NULL) + seconds;
	sh->sysctl = read_sysctl();
	workers = argc == 4 ? atoi(argv[3]) : sh->nr_cpus + 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# backend %s, %s-level paging, %d CPUs, %d workers\n",
	       sh->backend == LAM ? "lam" : sh->backend == UAI ? "uai" : "none",
	       sh->la57 ? "5" : "4", sh->nr_cpus, workers);

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
	for (i = 0; i < NR_OPS; i++)
		printf("# %-12s %ld\n", op_names[i], sh->ops[i]);
	for (i = 0; i < NR_KINDS && sh->kinds[i].hash; i++)
		printf("# %6ld failed like: %s\n", sh->kinds[i].count, sh->kinds[i].first);
	printf("# %ld checks passed, %ld failed, %ld calls unchecked (raced with the sysctl)\n",
	       sh->passed, sh->failed, sh->unchecked);
	check(!max_bits == (sh->backend == NONE),
	      "the kernel offers tagging as TAGGED_EXPECT=%s says (%lu bits)",
	      getenv("TAGGED_EXPECT"), max_bits);
	for (i = 0; i < NR_OPS; i++)
		if (!sh->ops[i]) {
			printf("# no %s ran\n", op_names[i]);
			missing++;
		}
	check(!missing, "tagged_fuzz seed %lu: all %d operation kinds ran (%ld did not)",
	      seed, NR_OPS, missing);
	checks = sh->passed + sh->failed;
	check(checks > 0 && sh->unchecked * 100 < checks,
	      "tagged_fuzz seed %lu: %ld calls unchecked, under 1%% of %ld checks",
	      seed, sh->unchecked, checks);
	check(!sh->failed, "tagged_fuzz seed %lu: %ld results match the ABI, %ld do not",
	      seed, sh->passed, sh->failed);
	return tap_end();
}
