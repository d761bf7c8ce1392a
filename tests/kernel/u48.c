// SPDX-License-Identifier: GPL-2.0
/*
 * u48: LAM_U48, fifteen tag bits at 62:48 (kernel/series/6-lam-u48), in the
 * guest. "u48 lam" on --cpu lam (4- or 5-level paging), "u48 uai" on
 * --cpu uai with UAI offered; "la57" as a second argument adds the checks
 * that need 5-level paging.
 *
 *  - The ABI matrix: prctl(PR_SET_TAGGED_ADDR_CTRL) and
 *    arch_prctl(ARCH_ENABLE_TAGGED_ADDR) with every nr_bits from 0 to 16,
 *    each in a fresh child: the answer, the grant written back, GET and
 *    the untag mask afterwards. LAM: 1..6 get 6 bits at 57, 7..15 get 15
 *    at 48. UAI: 7..16 are EINVAL and leave the process untagged.
 *  - Enabling twice: PR_SET on a U48 process with 6 or 15 bits is granted
 *    15 at 48 again, 7 bits on a U57 process is EBUSY and writes nothing
 *    back, arch_prctl is EBUSY; the mode never changes.
 *  - A U48 process dereferences pointers with each of bits 48..62 set and
 *    passes them to read() and write(); a U57 and an untagged process die
 *    of SIGSEGV on the same pointers with a bit in 56:48 set; fork()
 *    inherits U48, execve() drops it.
 *  - io_uring SQPOLL: the SQ thread (an io thread on the process's mm)
 *    writes from and reads into U48-tagged buffers (EFAULT if its CR3
 *    lacked bit 62).
 *  - kthread_use_mm(): a kernel thread of the u48_usemm test module
 *    (tests/kernel/modules/u48_usemm.c, loaded by the caller) adopts the
 *    mm, runs with CR3 bit 62 and reads a bit-54 pointer; with a U57 mm,
 *    bit 61 and the read faults.
 *  - Two processes, one U48 and one untagged, hop between two CPUs in
 *    turn: the U48 one never faults on its tagged pointer, the untagged
 *    one always does.
 *  - Tracepoints: tagged_addr_ctrl reports mode=lam_u48 with 15 bits at
 *    48 and the mask ~GENMASK(62, 48), tagged_addr_untag mode=lam_u48,
 *    tagged_addr_mode_switch both ways between a U57 and a U48 process
 *    sharing CPU 0, with CR3 bit 62.
 *  - la57: an mm that maps above 47 bits is refused U48 (EBUSY) and keeps
 *    its mapping and its mode; after U48, hints above 47 bits (mmap and
 *    MAP_HUGETLB) land below, and MAP_FIXED, MAP_FIXED_NOREPLACE,
 *    mremap(MREMAP_FIXED) and shmat() at 2^48 fail. An untagged child
 *    shows each of them reaches above 47 bits otherwise.
 *
 * Prints TAP; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/io_uring.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_GET_TAGGED_ADDR_CTRL	56
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

#define U48_MASK	0x8000ffffffffffffUL	/* ~GENMASK(62, 48) */
#define U57_MASK	0x81ffffffffffffffUL	/* ~GENMASK(62, 57) */
#define WINDOW		((1UL << 47) - 4096)	/* DEFAULT_MAP_WINDOW */
#define HIGH		(1UL << 48)
#define HUGE_2M		(2UL << 20)
#define TRACEFS		"/sys/kernel/tracing"
#define ROUNDS		200

static int lam, la57, refused;
static char *self;

static long set_ctrl(int *nr, int *off)
{
	return prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, nr, off, 0);
}

static unsigned long untag_mask(void)
{
	unsigned long m = 0;

	if (arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&m))
		return 0;
	return m;
}

static void *with_bit(const void *p, int bit)
{
	return (void *)((uintptr_t)p | (1UL << bit));
}

/* What a child saw: filled in the child, read back through a pipe. */
struct seen {
	long ret;
	int err, nr, off;
	long get;
	int get_nr, get_off;
	unsigned long mask;
	int fail;	/* a child's own failed checks */
	char why[160];
};

/* Runs fn in a child and returns what it saw; fail = 1000 if it died. */
static struct seen in_child(void (*fn)(struct seen *, long), long arg)
{
	struct seen s = { .fail = 1000 };
	int fd[2], status;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd))
		return s;
	pid = fork();
	if (pid == 0) {
		struct seen c = { 0 };

		close(fd[0]);
		fn(&c, arg);
		if (write(fd[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (pid > 0 && read(fd[0], &s, sizeof(s)) != sizeof(s))
		s.fail = 1000;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return s;
}

static void after(struct seen *s)
{
	s->get_nr = -1;
	s->get_off = -1;
	s->get = prctl(PR_GET_TAGGED_ADDR_CTRL, &s->get_nr, &s->get_off, 0, 0);
	s->mask = untag_mask();
}

static void try_prctl(struct seen *s, long bits)
{
	s->nr = bits;
	s->off = -1;
	errno = 0;
	s->ret = set_ctrl(&s->nr, &s->off);
	s->err = errno;
	after(s);
}

static void try_arch(struct seen *s, long bits)
{
	errno = 0;
	s->ret = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, bits);
	s->err = errno;
	after(s);
}

/* The answer each nr_bits must get from this CPU. */
static void want_for(int bits, int *nr, int *off, unsigned long *mask)
{
	*nr = 0;
	*off = 0;
	*mask = -1UL;
	if (bits >= 1 && bits <= 6) {
		*nr = 6;
		*off = 57;
		*mask = U57_MASK;
	} else if (lam && bits >= 7 && bits <= 15) {
		*nr = 15;
		*off = 48;
		*mask = U48_MASK;
	}
}

static void test_matrix(void)
{
	unsigned long mask, max = 99;
	int bits, nr, off;
	struct seen s;
	long r;

	r = arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&max);
	check(!r && max == 6,
	      "ARCH_GET_MAX_TAG_BITS is 6, the default mode's width (%ld, %lu)",
	      r, max);

	for (bits = 0; bits <= 16; bits++) {
		want_for(bits, &nr, &off, &mask);
		s = in_child(try_prctl, bits);
		if (nr)
			check(!s.fail && s.ret == 0 && s.nr == nr && s.off == off &&
			      s.get == PR_TAGGED_ADDR_ENABLE && s.get_nr == nr &&
			      s.get_off == off && s.mask == mask,
			      "prctl nr_bits %d: %ld, %d bits at %d; GET %ld, %d at %d; mask %#lx (want %d at %d, %#lx)",
			      bits, s.ret, s.nr, s.off, s.get, s.get_nr,
			      s.get_off, s.mask, nr, off, mask);
		else
			/* GET while untagged: the widest grant, and where. */
			check(!s.fail && s.ret == -1 && s.err == EINVAL &&
			      s.nr == bits && s.off == -1 && s.get == 0 &&
			      s.get_nr == (lam ? 15 : 6) &&
			      s.get_off == (lam ? 48 : 57) && s.mask == -1UL,
			      "prctl nr_bits %d: %ld (%s), nothing written back (%d, %d), still untagged (GET %ld, %d bits at %d; mask %#lx)",
			      bits, s.ret, strerror(s.err), s.nr, s.off, s.get,
			      s.get_nr, s.get_off, s.mask);

		s = in_child(try_arch, bits);
		if (nr)
			check(!s.fail && s.ret == 0 && s.get_nr == nr &&
			      s.get_off == off && s.mask == mask,
			      "arch_prctl %d bits: %ld; GET %d at %d; mask %#lx",
			      bits, s.ret, s.get_nr, s.get_off, s.mask);
		else
			check(!s.fail && s.ret == -1 && s.err == EINVAL &&
			      s.get == 0 && s.mask == -1UL,
			      "arch_prctl %d bits: %ld (%s), still untagged (mask %#lx)",
			      bits, s.ret, strerror(s.err), s.mask);
	}
}

/*
 * LAM that policy refuses (mitigations on, LASS off): every request, U48's
 * included, fails with EPERM before its argument is looked at.
 */
static void test_refused(void)
{
	unsigned long max = 99;
	struct seen s;
	int bits;
	long r;

	for (bits = 0; bits <= 16; bits++) {
		s = in_child(try_prctl, bits);
		check(!s.fail && s.ret == -1 && s.err == EPERM && s.nr == bits &&
		      s.get == 0 && s.get_nr == 0 && s.get_off == 0 &&
		      s.mask == -1UL,
		      "refused: prctl nr_bits %d: %ld (%s), GET %ld with %d bits at %d, mask %#lx",
		      bits, s.ret, strerror(s.err), s.get, s.get_nr, s.get_off,
		      s.mask);
		s = in_child(try_arch, bits);
		check(!s.fail && s.ret == -1 && s.err == EPERM && s.mask == -1UL,
		      "refused: arch_prctl %d bits: %ld (%s)", bits, s.ret,
		      strerror(s.err));
	}
	r = arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&max);
	check(!r && !max, "refused: ARCH_GET_MAX_TAG_BITS is 0 (%ld, %lu)", r,
	      max);
}

/* Enable with first bits, then PR_SET with again bits: what the second saw. */
static void twice(struct seen *s, long arg)
{
	int first = arg >> 8, again = arg & 0xff, nr = first, off;

	if (set_ctrl(&nr, &off)) {
		s->fail = 1;
		snprintf(s->why, sizeof(s->why), "first enable: %s",
			 strerror(errno));
		return;
	}
	try_prctl(s, again);
}

static void arch_twice(struct seen *s, long first)
{
	if (arch_prctl(ARCH_ENABLE_TAGGED_ADDR, first)) {
		s->fail = 1;
		return;
	}
	try_arch(s, first);
}

static void test_twice(void)
{
	struct seen s;
	int again[] = { 6, 15, 1 };
	int i;

	if (!lam) {
		s = in_child(twice, 6 << 8 | 7);
		check(!s.fail && s.ret == -1 && s.err == EINVAL && s.nr == 7 &&
		      s.get_nr == 6 && s.mask == U57_MASK,
		      "UAI: 7 bits asked again: %ld (%s), nr %d; still 6 bits (%d), mask %#lx",
		      s.ret, strerror(s.err), s.nr, s.get_nr, s.mask);
		return;
	}
	for (i = 0; i < 3; i++) {
		s = in_child(twice, 15 << 8 | again[i]);
		check(!s.fail && s.ret == 0 && s.nr == 15 && s.off == 48 &&
		      s.mask == U48_MASK,
		      "U48, then %d bits asked again: %ld, granted %d at %d, mask %#lx %s",
		      again[i], s.ret, s.nr, s.off, s.mask, s.why);
	}
	s = in_child(twice, 6 << 8 | 7);
	check(!s.fail && s.ret == -1 && s.err == EBUSY && s.nr == 7 &&
	      s.off == -1 && s.get_nr == 6 && s.get_off == 57 &&
	      s.mask == U57_MASK,
	      "U57, then 7 bits asked: %ld (%s), nothing written back (%d, %d), still 6 at 57 (%d at %d), mask %#lx",
	      s.ret, strerror(s.err), s.nr, s.off, s.get_nr, s.get_off, s.mask);
	s = in_child(twice, 6 << 8 | 15);
	check(!s.fail && s.ret == -1 && s.err == EBUSY && s.mask == U57_MASK,
	      "U57, then 15 bits asked: %ld (%s), mask %#lx", s.ret,
	      strerror(s.err), s.mask);
	s = in_child(arch_twice, 15);
	check(!s.fail && s.ret == -1 && s.err == EBUSY && s.mask == U48_MASK,
	      "arch_prctl 15 bits twice: %ld (%s), mask %#lx", s.ret,
	      strerror(s.err), s.mask);
	s = in_child(arch_twice, 6);
	check(!s.fail && s.ret == -1 && s.err == EBUSY && s.mask == U57_MASK,
	      "arch_prctl 6 bits twice: %ld (%s), mask %#lx", s.ret,
	      strerror(s.err), s.mask);
}

/*
 * In a process enabled with bits (0: untagged): dereference buf through a
 * pointer with each of bits 48..62 set, in a grandchild each; the mask of
 * bits that worked, and of those whose read()/write() worked.
 */
static void deref_bits(struct seen *s, long bits)
{
	static volatile uint64_t buf[2];
	int bit, nr = bits, off, fd[2];
	uint64_t v = 0x5a5a;

	if (bits && set_ctrl(&nr, &off)) {
		s->fail = 1;
		return;
	}
	after(s);
	s->ret = 0;
	s->nr = 0;
	for (bit = 48; bit <= 62; bit++) {
		volatile uint64_t *p = with_bit((void *)buf, bit);

		if (!deref_in_child(p, buf))
			s->ret |= 1L << (bit - 48);
		if (pipe(fd))
			continue;
		buf[1] = 0;
		if (write(fd[1], with_bit(&v, bit), 8) == 8 &&
		    read(fd[0], with_bit((void *)&buf[1], bit), 8) == 8 &&
		    buf[1] == v)
			s->nr |= 1 << (bit - 48);
		close(fd[0]);
		close(fd[1]);
	}
}

static void test_deref(void)
{
	struct seen s;

	if (!lam)
		return;
	s = in_child(deref_bits, 15);
	check(!s.fail && s.ret == 0x7fff && s.mask == U48_MASK,
	      "U48: dereferences with each of bits 48..62 set work (mask of bits that did %#lx), in a forked child",
	      s.ret);
	check(!s.fail && s.nr == 0x7fff,
	      "U48: read() and write() take pointers with each of bits 48..62 set (%#x)",
	      s.nr);
	s = in_child(deref_bits, 6);
	check(!s.fail && s.ret == 0x7e00 && s.mask == U57_MASK,
	      "U57: only bits 57..62 are ignored (%#lx, want 0x7e00)", s.ret);
	s = in_child(deref_bits, 0);
	check(!s.fail && s.ret == 0 && s.mask == -1UL,
	      "untagged: every bit 48..62 faults (%#lx)", s.ret);
}

/* execve() drops U48: the program, run again as "u48 --after-exec". */
static int after_exec(void)
{
	static volatile uint64_t buf;
	int nr = -1, off = -1;
	long get = prctl(PR_GET_TAGGED_ADDR_CTRL, &nr, &off, 0, 0);

	printf("# after exec: GET %ld, %d bits; mask %#lx\n", get, nr,
	       untag_mask());
	if (get != 0 || untag_mask() != -1UL)
		return 1;
	return deref_in_child(with_bit((void *)&buf, 52), &buf) == SIGSEGV ? 0 : 2;
}

static void test_exec(void)
{
	int nr = 15, off, status;
	pid_t pid;

	if (!lam)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (set_ctrl(&nr, &off) || untag_mask() != U48_MASK)
			_exit(3);
		execl(self, self, "--after-exec", NULL);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "execve() of a U48 process starts untagged, and bit 52 faults again (status %#x)",
	      status);
}

/* io_uring with SQPOLL: one write from and one read into tagged buffers. */
static void sqpoll(struct seen *s, long bits)
{
	static char out[64] = "u48 through the SQ thread", in[64], back[64];
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL,
				     .sq_thread_idle = 1000 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned int *sqtail, *cqhead, *cqtail, *array, mask, i;
	int ring, nr = bits, off, fd[3];
	size_t sz;
	char *sq;

	if (bits && set_ctrl(&nr, &off)) {
		s->fail = 1;
		return;
	}
	s->ret = s->off = -10000;
	memset(in, 0xff, sizeof(in));
	fd[2] = open("/dev/zero", O_RDONLY);
	if (pipe2(fd, O_NONBLOCK) || fd[2] < 0)
		return;
	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0) {
		s->fail = 2;
		snprintf(s->why, sizeof(s->why), "io_uring_setup: %s",
			 strerror(errno));
		return;
	}
	sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.sq_off.array + p.sq_entries * sizeof(unsigned int) > sz)
		sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	sq = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  ring, IORING_OFF_SQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED) {
		s->fail = 3;
		return;
	}
	sqtail = (unsigned int *)(sq + p.sq_off.tail);
	array = (unsigned int *)(sq + p.sq_off.array);
	mask = *(unsigned int *)(sq + p.sq_off.ring_mask);
	cqhead = (unsigned int *)(sq + p.cq_off.head);
	cqtail = (unsigned int *)(sq + p.cq_off.tail);
	cqes = (struct io_uring_cqe *)(sq + p.cq_off.cqes);

	for (i = 0; i < 2; i++) {
		struct io_uring_sqe *e = &sqes[i];
		unsigned int t = *sqtail;

		memset(e, 0, sizeof(*e));
		e->opcode = i ? IORING_OP_READ : IORING_OP_WRITE;
		e->fd = i ? fd[2] : fd[1];
		e->addr = (uintptr_t)with_bit(i ? in : out, 48 + 4 * i + 3);
		e->len = sizeof(out);
		e->user_data = i;
		array[t & mask] = i;
		__atomic_store_n(sqtail, t + 1, __ATOMIC_RELEASE);
		/* Wake the SQ thread if it sleeps, and wait for the CQE. */
		syscall(__NR_io_uring_enter, ring, 0, 1,
			IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP, NULL, 0);
		while (__atomic_load_n(cqtail, __ATOMIC_ACQUIRE) == *cqhead)
			sched_yield();
		if (i)
			s->off = cqes[*cqhead & *(unsigned int *)(sq + p.cq_off.ring_mask)].res;
		else
			s->ret = cqes[*cqhead & *(unsigned int *)(sq + p.cq_off.ring_mask)].res;
		__atomic_store_n(cqhead, *cqhead + 1, __ATOMIC_RELEASE);
	}
	/* What the SQ thread wrote, read back plainly; and zeroes read in. */
	memset(back, 0, sizeof(back));
	s->nr = read(fd[0], back, sizeof(back)) == sizeof(back) &&
		!memcmp(back, out, sizeof(out)) && !in[0] &&
		!memcmp(in, in + 1, sizeof(in) - 1);
	after(s);
}

static void test_sqpoll(void)
{
	struct seen s;

	if (!lam)
		return;
	s = in_child(sqpoll, 15);
	check(!s.fail && s.ret == 64 && s.off == 64 && s.nr,
	      "U48: the SQPOLL thread writes to a pipe from a bit-51 pointer (%ld) and reads /dev/zero into a bit-55 one (%d), data intact (%d) %s",
	      s.ret, s.off, s.nr, s.why);
	s = in_child(sqpoll, 6);
	check(!s.fail && s.ret == -EFAULT && s.off == -EFAULT,
	      "U57: the same SQPOLL requests fail with EFAULT (%ld, %d)",
	      s.ret, s.off);
}

/*
 * kthread_use_mm(): the u48_usemm test module's kernel thread adopts this
 * mm and reads a bit-54 pointer with copy_from_user(); it reports CR3's
 * LAM bits there (->mask), the bytes left uncopied (->ret) and whether it
 * read the right value (->nr).
 */
static void usemm(struct seen *s, long bits)
{
	static volatile uint64_t word = 0x7755aa;
	unsigned long cr3_lam = 0, left = 0, val = 0;
	int nr = bits, off, fd;
	char buf[128];
	ssize_t n;

	s->fail = 0;
	if (set_ctrl(&nr, &off)) {
		s->fail = 1;
		return;
	}
	fd = open("/proc/u48_usemm", O_RDWR);
	n = snprintf(buf, sizeof(buf), "%lx\n",
		     (unsigned long)with_bit((void *)&word, 54));
	if (fd < 0 || write(fd, buf, n) != n || lseek(fd, 0, SEEK_SET)) {
		s->fail = 2;
		snprintf(s->why, sizeof(s->why), "/proc/u48_usemm: %s",
			 strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	if (sscanf(buf, "cr3_lam=%lx ret=%lu val=%lx", &cr3_lam, &left,
		   &val) != 3)
		s->fail = 3;
	s->mask = cr3_lam;
	s->ret = left;
	s->nr = val == word;
	close(fd);
}

static void test_usemm(void)
{
	struct seen s;

	if (!lam)
		return;
	s = in_child(usemm, 15);
	check(!s.fail && s.mask == 1UL << 62 && s.ret == 0 && s.nr,
	      "kthread_use_mm() of a U48 mm: CR3 LAM bits %#lx (want bit 62), a bit-54 pointer read with %ld bytes left, value %s %s",
	      s.mask, s.ret, s.nr ? "right" : "wrong", s.why);
	s = in_child(usemm, 6);
	check(!s.fail && s.mask == 1UL << 61 && s.ret == 8,
	      "kthread_use_mm() of a U57 mm: CR3 LAM bits %#lx (want bit 61), the bit-54 pointer faults (%ld bytes left) %s",
	      s.mask, s.ret, s.why);
}

static sigjmp_buf hop_jmp;

static void hop_segv(int sig)
{
	(void)sig;
	siglongjmp(hop_jmp, 1);
}

/*
 * One of two hoppers: each round moves to the other CPU, waits for its
 * partner (but the first mover's first round), dereferences a pointer with
 * bit 52 set and hands over, so that the two alternate on each CPU.
 * Returns the rounds in which the dereference faulted.
 */
static int hop(int bits, int rd, int wr, int first)
{
	static volatile uint64_t word = 7;
	volatile uint64_t *p = with_bit((void *)&word, 52);
	volatile int faults = 0, i;
	int nr = bits, off;
	struct sigaction sa = { .sa_handler = hop_segv };
	cpu_set_t set;
	char c = 0;

	if (bits && set_ctrl(&nr, &off))
		return -1;
	sigaction(SIGSEGV, &sa, NULL);
	/* The partner may be gone by the last hand-over. */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < ROUNDS; i++) {
		CPU_ZERO(&set);
		CPU_SET(i & 1, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return -4;
		if ((i || !first) && read(rd, &c, 1) != 1)
			return -2;
		if (sigsetjmp(hop_jmp, 1))
			faults++;
		else
			(void)*p;
		if (write(wr, &c, 1) != 1 && i != ROUNDS - 1)
			return -3;
	}
	return faults;
}

static void test_hop(void)
{
	int ab[2], ba[2], sa, sb;
	pid_t a, b;

	if (!lam)
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		check(0, "two CPUs to hop between (%ld online)",
		      sysconf(_SC_NPROCESSORS_ONLN));
		return;
	}
	if (pipe(ab) || pipe(ba))
		return;
	fflush(stdout);
	/* Each closes its partner's ends, so that it sees its partner die. */
	a = fork();
	if (a == 0) {
		close(ab[0]);
		close(ba[1]);
		_exit(hop(15, ba[0], ab[1], 1) + 100);
	}
	b = fork();
	if (b == 0) {
		close(ab[1]);
		close(ba[0]);
		_exit(hop(0, ab[0], ba[1], 0) == ROUNDS ? 0 : 1);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	waitpid(a, &sa, 0);
	waitpid(b, &sb, 0);
	check(WIFEXITED(sa) && WEXITSTATUS(sa) == 100,
	      "a U48 process hopping between two CPUs with an untagged one: %d of %d tagged dereferences faulted",
	      WIFEXITED(sa) ? WEXITSTATUS(sa) - 100 : -1000, ROUNDS);
	check(WIFEXITED(sb) && WEXITSTATUS(sb) == 0,
	      "the untagged one faulted on each of its %d (status %#x)",
	      ROUNDS, sb);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static int trace_events(const char *on)
{
	static const char *const ev[] = { "tagged_addr_ctrl",
		"tagged_addr_mode_switch", "tagged_addr_untag" };
	char path[128];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/tagged_addr/%s/enable",
			 ev[i]);
		if (write_file(path, on))
			return -1;
	}
	return 0;
}

/* Does the trace have a line with every one of the strings? */
static int traced(const char *trace, const char *a, const char *b,
		  const char *c)
{
	const char *line = trace;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		if (memmem(line, n, a, strlen(a)) &&
		    (!b || memmem(line, n, b, strlen(b))) &&
		    (!c || memmem(line, n, c, strlen(c))))
			return 1;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* A (15 bits) and B (6) take turns on CPU 0; A passes one tagged pointer in. */
static void trace_worker(int bits, int rd, int wr, int first,
			 volatile unsigned long *shared)
{
	static uint64_t v = 0x1234;
	int nr = bits, off, i, fd[2];
	cpu_set_t set;
	char c = 0;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || set_ctrl(&nr, &off))
		_exit(1);
	if (bits == 15) {
		void *p = with_bit(&v, 53);

		*shared = (uintptr_t)p;
		if (pipe(fd) || write(fd[1], p, 8) != 8)
			_exit(2);
	}
	signal(SIGPIPE, SIG_IGN);	/* the partner may be gone at the end */
	for (i = 0; i < 10; i++) {
		if ((i || !first) && read(rd, &c, 1) != 1)
			_exit(3);
		if (write(wr, &c, 1) != 1 && i != 9)
			_exit(4);
	}
	_exit(0);
}

static void test_trace(void)
{
	volatile unsigned long *shared;
	char want[256], pa[32], pb[32], *trace;
	int ab[2], ba[2], sa, sb, fd;
	size_t len = 0, cap = 1 << 22;
	ssize_t n;
	pid_t a, b;

	if (!lam)
		return;
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	trace = malloc(cap);
	if (shared == MAP_FAILED || !trace || pipe(ab) || pipe(ba) ||
	    write_file(TRACEFS "/trace", "") || trace_events("1")) {
		check(0, "tracefs set up: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	a = fork();
	if (a == 0) {
		close(ab[0]);
		close(ba[1]);
		trace_worker(15, ba[0], ab[1], 1, shared);
	}
	b = fork();
	if (b == 0) {
		close(ab[1]);
		close(ba[0]);
		trace_worker(6, ab[0], ba[1], 0, shared);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	waitpid(a, &sa, 0);
	waitpid(b, &sb, 0);
	trace_events("0");
	fd = open(TRACEFS "/trace", O_RDONLY);
	while (fd >= 0 && len < cap - 1 &&
	       (n = read(fd, trace + len, cap - 1 - len)) > 0)
		len += n;
	trace[len] = 0;
	if (fd >= 0)
		close(fd);
	check(sa == 0 && sb == 0 && len > 0,
	      "the traced U48 and U57 processes ran (status %#x, %#x), %zu bytes of trace",
	      sa, sb, len);

	snprintf(want, sizeof(want),
		 "pid=%d interface=prctl op=enable req_bits=15 granted_bits=15 offset=48 mode=lam_u48 untag_mask=0x8000ffffffffffff ret=0 ",
		 a);
	check(traced(trace, want, NULL, NULL), "tagged_addr_ctrl: %s", want);
	snprintf(want, sizeof(want), "tagged=%#lx untagged=%#lx ", *shared,
		 *shared & U48_MASK);
	check(traced(trace, want, "mode=lam_u48", NULL),
	      "tagged_addr_untag: %s... mode=lam_u48", want);
	snprintf(pa, sizeof(pa), "next_pid=%d ", a);
	snprintf(pb, sizeof(pb), "next_pid=%d ", b);
	check(traced(trace, pa,
		     "prev_mode=lam_u57 next_mode=lam_u48 cr3_lam=0x4000000000000000",
		     NULL),
	      "tagged_addr_mode_switch: %s... prev_mode=lam_u57 next_mode=lam_u48 cr3_lam=0x4000000000000000",
	      pa);
	check(traced(trace, pb,
		     "prev_mode=lam_u48 next_mode=lam_u57 cr3_lam=0x2000000000000000",
		     NULL),
	      "tagged_addr_mode_switch: %s... prev_mode=lam_u48 next_mode=lam_u57 cr3_lam=0x2000000000000000",
	      pb);
	free(trace);
}

static unsigned long map(unsigned long hint, unsigned long len, int flags)
{
	void *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
		       flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? 0 : (unsigned long)p;
}

static int high(unsigned long addr)
{
	return addr && addr >= WINDOW;
}

/*
 * On 5-level paging, in a child: each way of mapping above 47 bits, as
 * bits say which reached there (bit 0 hint, 1 MAP_HUGETLB hint, 2
 * MAP_FIXED, 3 MAP_FIXED_NOREPLACE, 4 mremap, 5 shmat); then, for a
 * process to enable U48 (arg 15), the same after the enable in ->nr.
 */
static int reach_high(void)
{
	unsigned long a, got = 0;
	int id, r = 0;
	void *sh;

	a = map(HIGH, 4096, 0);
	r |= high(a) << 0;
	if (a)
		munmap((void *)a, 4096);
	a = map(HIGH, HUGE_2M, MAP_HUGETLB | MAP_NORESERVE);
	r |= high(a) << 1;
	if (a)
		munmap((void *)a, HUGE_2M);
	a = map(HIGH, 4096, MAP_FIXED);
	r |= (a == HIGH) << 2;
	if (a)
		munmap((void *)a, 4096);
	a = map(HIGH, 4096, MAP_FIXED_NOREPLACE);
	r |= (a == HIGH) << 3;
	if (a)
		munmap((void *)a, 4096);
	a = map(0, 4096, 0);
	if (a)
		got = (unsigned long)mremap((void *)a, 4096, 4096,
					    MREMAP_MAYMOVE | MREMAP_FIXED,
					    (void *)HIGH);
	r |= (got == HIGH) << 4;
	munmap((void *)(got == HIGH ? HIGH : a), 4096);
	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (id >= 0) {
		sh = shmat(id, (void *)HIGH, 0);
		r |= (sh == (void *)HIGH) << 5;
		if (sh != (void *)-1)
			shmdt(sh);
		shmctl(id, IPC_RMID, NULL);
	}
	return r;
}

static void high_then_u48(struct seen *s, long bits)
{
	unsigned long a;

	s->fail = 0;
	s->ret = reach_high();
	if (!bits)
		return;
	/* An mm with a mapping above 47 bits is refused U48. */
	a = map(HIGH, 4096, 0);
	if (!high(a)) {
		s->fail = 1;
		return;
	}
	try_prctl(s, bits);
	*(volatile char *)a = 1;	/* still mapped and writable */
	s->off = s->ret == -1 && s->err == EBUSY;
	munmap((void *)a, 4096);
	s->nr = -1;
	if (!s->off || set_ctrl(&(int){ 15 }, NULL))
		return;
	s->nr = reach_high();
	s->mask = untag_mask();
}

static void test_la57(void)
{
	struct seen s;

	if (!lam || !la57)
		return;
	s = in_child(high_then_u48, 0);
	check(s.ret == 0x3f,
	      "untagged: a hint, MAP_HUGETLB, MAP_FIXED, MAP_FIXED_NOREPLACE, mremap() and shmat() reach above 47 bits (%#lx, want 0x3f)",
	      s.ret);
	s = in_child(high_then_u48, 15);
	check(s.off && s.get == 0 && s.fail == 0,
	      "an mm mapped above 47 bits is refused U48 with EBUSY (%s) and stays untagged (GET %ld), its mapping intact",
	      strerror(s.err), s.get);
	check(s.nr == 0 && s.mask == U48_MASK,
	      "after U48 none of the six reaches above 47 bits (%#x, want 0), mask %#lx",
	      s.nr, s.mask);
}

int main(int argc, char **argv)
{
	int i;

	self = argv[0];
	if (argc > 1 && !strcmp(argv[1], "--after-exec"))
		return after_exec();
	for (i = 1; i < argc; i++) {
		lam |= !strcmp(argv[i], "lam");
		la57 |= !strcmp(argv[i], "la57");
		refused |= !strcmp(argv[i], "refused");
	}
	if (refused) {
		test_refused();
		return tap_end();
	}
	test_matrix();
	test_twice();
	test_deref();
	test_exec();
	test_sqpoll();
	test_usemm();
	test_hop();
	test_trace();
	test_la57();
	return tap_end();
}
