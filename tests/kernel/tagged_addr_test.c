// SPDX-License-Identifier: GPL-2.0
/*
 * The tagged-address ABI of kernel/series/, checked in the guest:
 *
 *   TAGGED_EXPECT=lam|uai|none tagged_addr_test
 *
 * TAGGED_EXPECT is the CPU the rig booted; the test insists the kernel
 * offers exactly that (a kernel that silently offers nothing must not pass
 * by skipping). Each TEST runs in its own child, so each starts untagged.
 * Output is TAP (kselftest_harness.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <linux/io_uring.h>

#include "kselftest_harness.h"
#include "../lib/tagging.h"

#define UNTAG_MASK	(~TAG_MASK)
#define KERNEL_ADDR	0xffff888000000000UL

enum { NONE, LAM, UAI } expect;

static const char *expect_name(void)
{
	return expect == LAM ? "lam" : expect == UAI ? "uai" : "none";
}

static int set_ctrl(unsigned long flags, int *bits, int *off)
{
	return prctl(PR_SET_TAGGED_ADDR_CTRL, flags, bits, off, 0);
}

static int get_ctrl(int *bits, int *off)
{
	return prctl(PR_GET_TAGGED_ADDR_CTRL, bits, off, 0, 0);
}

static void *page(int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *unmapped(void)
{
	void *p = page(PROT_READ | PROT_WRITE);

	munmap(p, 4096);
	return p;
}

/* The process is untagged: GET says so and a tagged dereference faults. */
#define ASSERT_UNTAGGED() do {						\
	static volatile uint64_t __v;					\
	ASSERT_EQ(0, get_ctrl(NULL, NULL));				\
	ASSERT_EQ(SIGSEGV, deref_in_child(tag_ptr((void *)&__v, 5), &__v)); \
} while (0)

#define ASSERT_TAGGED() do {						\
	static volatile uint64_t __v;					\
	ASSERT_EQ(PR_TAGGED_ADDR_ENABLE, get_ctrl(NULL, NULL));		\
	ASSERT_EQ(0, deref_in_child(tag_ptr((void *)&__v, 0x3f), &__v)); \
} while (0)

#define SKIP_WITHOUT_TAGGING() do {					\
	if (expect == NONE)						\
		SKIP(return, "no tagging on --cpu none");		\
} while (0)

TEST(cpu_offers_what_the_rig_booted)
{
	unsigned long bits = 99;
	int nr = 99, off = 99;

	ASSERT_EQ(0, arch_prctl(ARCH_GET_MAX_TAG_BITS, (unsigned long)&bits));
	EXPECT_EQ(expect == NONE ? 0 : TAG_BITS, bits);
	ASSERT_EQ(0, get_ctrl(&nr, &off));
	EXPECT_EQ(expect == NONE ? 0 : TAG_BITS, nr);
	EXPECT_EQ(99, off);	/* untouched while disabled */
	TH_LOG("--cpu %s: %lu tag bits", expect_name(), bits);
}

TEST(no_backend_enables_fail_with_enodev)
{
	int nr = 6;

	if (expect != NONE)
		SKIP(return, "this CPU has a tagging backend");
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, NULL));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(0x2, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_UNTAGGED();
}

TEST(prctl_enable_reports_six_bits_at_57)
{
	static volatile uint64_t v = 41;
	int nr = 3, off = -1;

	SKIP_WITHOUT_TAGGING();
	ASSERT_UNTAGGED();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, &off));
	EXPECT_EQ(TAG_BITS, nr);
	EXPECT_EQ(TAG_SHIFT, off);
	nr = off = 0;
	ASSERT_EQ(PR_TAGGED_ADDR_ENABLE, get_ctrl(&nr, &off));
	EXPECT_EQ(TAG_BITS, nr);
	EXPECT_EQ(TAG_SHIFT, off);
	for (unsigned long t = 1; t < 64; t <<= 1)
		EXPECT_EQ(0, deref_in_child(tag_ptr((void *)&v, t), &v));
}

TEST(arch_prctl_enables_the_same_mode)
{
	unsigned long mask = 0;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
	ASSERT_EQ(0, arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask));
	EXPECT_EQ(UNTAG_MASK, mask);
	ASSERT_TAGGED();
}

TEST(legacy_null_pointers_enable)
{
	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	ASSERT_TAGGED();
}

/* Every bad request fails with its errno and leaves the process untagged. */
TEST(bad_requests_change_nothing)
{
	int *ro = page(PROT_READ), *gone = unmapped();
	int *kern = (int *)KERNEL_ADDR;
	int bad_bits[] = { 0, -1, 7, 64, INT_MAX, INT_MIN };
	unsigned long bad_arch[] = { 0, 7, 64, ~0UL };
	int nr, off, i;

	SKIP_WITHOUT_TAGGING();
	ASSERT_NE(NULL, ro);

	for (i = 0; i < sizeof(bad_bits) / sizeof(bad_bits[0]); i++) {
		nr = bad_bits[i];
		errno = 0;
		EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, &off));
		EXPECT_EQ(EINVAL, errno) TH_LOG("nr_bits %d", bad_bits[i]);
	}
	for (i = 0; i < sizeof(bad_arch) / sizeof(bad_arch[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, arch_prctl(ARCH_ENABLE_TAGGED_ADDR, bad_arch[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("arch_prctl bits %lu", bad_arch[i]);
	}

	errno = 0;	/* unknown flag */
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE | 0x8, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;	/* arg5 must be 0 */
	EXPECT_EQ(-1, prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 1, 0));
	EXPECT_EQ(EINVAL, errno);

	/* nr_bits / offset that cannot be read or written */
	nr = 6;
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, gone, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, kern, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, gone));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, kern));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, get_ctrl(gone, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, get_ctrl(ro, NULL));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_UNTAGGED();
}

TEST(read_only_nr_bits_is_efault_before_any_change)
{
	int *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	SKIP_WITHOUT_TAGGING();
	*ro = 6;	/* a valid request that cannot be written back */
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, ro, NULL));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_UNTAGGED();
}

TEST(enable_twice_and_disable_are_ebusy)
{
	int nr = 6;

	SKIP_WITHOUT_TAGGING();
	EXPECT_EQ(0, set_ctrl(0, NULL, NULL));	/* disable while disabled */
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, NULL));
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, &nr, NULL));
	EXPECT_EQ(EBUSY, errno);
	errno = 0;
	EXPECT_EQ(-1, arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
	EXPECT_EQ(EBUSY, errno);
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(0, NULL, NULL));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_TAGGED();
}

static void *idle_thread(void *arg)
{
	pause();
	return arg;
}

TEST(threads_cannot_enable)
{
	pthread_t t;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, pthread_create(&t, NULL, idle_thread, NULL));
	errno = 0;
	EXPECT_EQ(-1, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	EXPECT_EQ(EBUSY, errno);
	errno = 0;
	EXPECT_EQ(-1, arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_UNTAGGED();
}

static int set_sysctl(const char *val)
{
	int fd = open("/proc/sys/abi/tagged_addr_disabled", O_WRONLY);
	int r = fd >= 0 && write(fd, val, strlen(val)) == strlen(val);

	if (fd >= 0)
		close(fd);
	return r ? 0 : -1;
}

TEST(sysctl_blocks_new_enables_only)
{
	static volatile uint64_t v;
	int status;
	pid_t pid;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	ASSERT_EQ(0, set_sysctl("1")) TH_LOG("abi.tagged_addr_disabled: %s",
					    strerror(errno));

	/* New enables fail in a fresh process; the enabled one keeps it. */
	pid = fork();
	if (pid == 0) {
		int r;

		execl("/proc/self/exe", "tagged_addr_test", "--try-enable", NULL);
		r = errno;
		_exit(100 + r);
	}
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, deref_in_child(tag_ptr((void *)&v, 9), &v));
	ASSERT_EQ(0, set_sysctl("0"));
	EXPECT_EQ(EINVAL, WEXITSTATUS(status));
}

TEST(fork_inherits)
{
	static volatile uint64_t v;
	int status;
	pid_t pid;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	pid = fork();
	if (pid == 0) {
		int nr = 0;

		if (get_ctrl(&nr, NULL) != PR_TAGGED_ADDR_ENABLE || nr != 6)
			_exit(1);
		v = 7;
		_exit(*(volatile uint64_t *)tag_ptr((void *)&v, 0x21) == 7 ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(exec_resets)
{
	int status;
	pid_t pid;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "tagged_addr_test", "--check-untagged", NULL);
		_exit(99);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* System calls reach user memory through every uaccess primitive. */
TEST(syscalls_take_tagged_pointers)
{
	char *buf = malloc(64), *tbuf = tag_ptr(buf, 0x2a);
	struct utsname *uts = malloc(sizeof(*uts));
	struct iovec iov[2] = { { tag_ptr(buf, 1), 3 }, { tag_ptr(buf + 3, 2), 3 } };
	char path[] = "/proc/self/comm";
	int p[2], one = 1, n = -1, fd;

	SKIP_WITHOUT_TAGGING();
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	ASSERT_EQ(0, pipe(p));

	/* copy_from_user / copy_to_user */
	strcpy(buf, "hello");
	ASSERT_EQ(5, write(p[1], tbuf, 5));
	memset(buf, 0, 64);
	ASSERT_EQ(5, read(p[0], tbuf, 64));
	EXPECT_STREQ("hello", buf);
	EXPECT_EQ(0, uname(tag_ptr(uts, 0x3f)));
	EXPECT_STREQ("Linux", uts->sysname);

	/* get_user (FIONBIO), put_user (FIONREAD) */
	EXPECT_EQ(0, ioctl(p[0], FIONBIO, tag_ptr(&one, 4)));
	ASSERT_EQ(2, write(p[1], "ab", 2));
	EXPECT_EQ(0, ioctl(p[0], FIONREAD, tag_ptr(&n, 0x11)));
	EXPECT_EQ(2, n);

	/* import_iovec: a tagged array of tagged buffers */
	ASSERT_EQ(4, write(p[1], "cdef", 4));
	EXPECT_EQ(6, readv(p[0], tag_ptr(iov, 3), 2));
	EXPECT_EQ(0, memcmp(buf, "abcdef", 6));

	/* strncpy_from_user */
	fd = open(tag_ptr(path, 0x15), O_RDONLY);
	EXPECT_LE(0, fd);
	close(fd);
}

/* A minimal io_uring: one IORING_OP_READ into a tagged buffer. */
static int uring_read(int fd, void *buf, unsigned int len)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *tail, *array, head;
	size_t sz;
	char *sq;
	int ring, res;

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return -10000 - errno;
	sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	if (p.cq_off.cqes + p.cq_entries * sizeof(*cqe) > sz)
		sz = p.cq_off.cqes + p.cq_entries * sizeof(*cqe);
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		return -20000;
	sq = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  ring, IORING_OFF_SQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED)
		return -30000;
	tail = (unsigned int *)(sq + p.sq_off.tail);
	array = (unsigned int *)(sq + p.sq_off.array);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_READ;
	sqes[0].fd = fd;
	sqes[0].addr = (uintptr_t)buf;
	sqes[0].len = len;
	array[*tail & *(unsigned int *)(sq + p.sq_off.ring_mask)] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -40000 - errno;
	head = *(unsigned int *)(sq + p.cq_off.head);
	cqe = (struct io_uring_cqe *)(sq + p.cq_off.cqes) +
	      (head & *(unsigned int *)(sq + p.cq_off.ring_mask));
	res = cqe->res;
	close(ring);
	return res;
}

TEST(io_uring_takes_tagged_pointers)
{
	char *buf = calloc(1, 64);
	int fd = open("/proc/self/comm", O_RDONLY);

	SKIP_WITHOUT_TAGGING();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	EXPECT_LT(0, uring_read(fd, tag_ptr(buf, 0x3f), 63));
	EXPECT_EQ(0, strncmp(buf, "tagged_addr", 11)) TH_LOG("read '%s'", buf);
	close(fd);
}

/*
 * Bit 63 is never a tag, and no tagged pointer reaches kernel memory, by
 * any uaccess path. 0x01ff8880... matters for UAI with 5-level paging: the
 * CPU would access it as 0xffff8880..., the direct map.
 */
TEST(no_tagged_pointer_reaches_the_kernel)
{
	char *buf = malloc(64);
	uintptr_t bad[] = {
		(uintptr_t)buf | 1UL << 63,
		(uintptr_t)tag_ptr(buf, 0x3f) | 1UL << 63,
		KERNEL_ADDR,
		(uintptr_t)tag_ptr((void *)KERNEL_ADDR, 0),
		(uintptr_t)tag_ptr((void *)KERNEL_ADDR, 0x15),
		0x01ff888000000000UL,
		(uintptr_t)tag_ptr((void *)0x01ff888000000000UL, 0x3f),
		(uintptr_t)tag_ptr((void *)0x00ff888000000000UL, 0x2a),
		(uintptr_t)tag_ptr((void *)0x7ffffffff000UL, 0x3f),
		(uintptr_t)tag_ptr((void *)0x0000800000000000UL, 0x01),
	};
	int p[2], i;

	if (expect != NONE)
		ASSERT_EQ(0, set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, fcntl(p[0], F_SETFL, O_NONBLOCK));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		void *b = (void *)bad[i];

		ASSERT_EQ(1, write(p[1], "x", 1));
		errno = 0;
		EXPECT_EQ(-1, read(p[0], b, 1));	/* copy_to_user */
		EXPECT_EQ(EFAULT, errno) TH_LOG("read into %p", b);
		errno = 0;
		EXPECT_EQ(-1, write(p[1], b, 1));	/* copy_from_user */
		EXPECT_EQ(EFAULT, errno) TH_LOG("write from %p", b);
		errno = 0;
		EXPECT_EQ(-1, ioctl(p[0], FIONBIO, b));	/* get_user */
		EXPECT_EQ(EFAULT, errno) TH_LOG("get_user %p", b);
		errno = 0;
		EXPECT_EQ(-1, ioctl(p[0], FIONREAD, b));	/* put_user */
		EXPECT_EQ(EFAULT, errno) TH_LOG("put_user %p", b);
		errno = 0;
		EXPECT_EQ(-1, open(b, O_RDONLY));	/* strncpy_from_user */
		EXPECT_EQ(EFAULT, errno) TH_LOG("open %p", b);
		errno = 0;
		EXPECT_EQ(-1, uname(b));
		EXPECT_EQ(EFAULT, errno) TH_LOG("uname %p", b);
		read(p[0], buf, 64);
	}
}

/*
 * A tagged and an untagged process take turns on one CPU through a pipe:
 * each switch must load the incoming process's mode. The tagged one
 * dereferences a tagged pointer every turn (a fault kills it); the
 * untagged one checks that the same dereference still faults.
 */
static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, 1);
}

static int pingpong(int rounds, int pin)
{
	int ab[2], ba[2], status, faults = 0, i;
	static volatile uint64_t v;
	cpu_set_t cpu0;
	char c = 0;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (pin && sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return -1;
	if (pipe(ab) || pipe(ba))
		return -2;
	pid = fork();
	if (pid == 0) {
		close(ab[1]);
		close(ba[0]);
		if (set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL))
			_exit(2);
		for (i = 0; i < rounds; i++) {
			if (read(ab[0], &c, 1) != 1)
				_exit(3);
			*(volatile uint64_t *)tag_ptr((void *)&v, i & 63) += 1;
			if (write(ba[1], &c, 1) != 1)
				_exit(4);
		}
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	signal(SIGSEGV, on_segv);
	for (i = 0; i < rounds; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
		if (sigsetjmp(segv_jmp, 1) == 0)
			(void)*(volatile uint64_t *)tag_ptr((void *)&v, 1 + i % 63);
		else
			faults++;
	}
	signal(SIGSEGV, SIG_DFL);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -100 - (WIFEXITED(status) ? WEXITSTATUS(status) : 50);
	return faults;
}

TEST(pingpong_on_one_cpu_keeps_each_mode)
{
	SKIP_WITHOUT_TAGGING();
	EXPECT_EQ(2000, pingpong(2000, 1));
}

TEST(pingpong_across_cpus_keeps_each_mode)
{
	SKIP_WITHOUT_TAGGING();
	EXPECT_EQ(2000, pingpong(2000, 0));
}

/* Helpers run after exec by the tests above; -1 when argv is not one. */
static int helper(const char *what)
{
	static volatile uint64_t v;

	if (!strcmp(what, "--check-untagged"))
		return get_ctrl(NULL, NULL) != 0 ||
		       deref_in_child(tag_ptr((void *)&v, 3), &v) != SIGSEGV;
	if (!strcmp(what, "--try-enable"))
		return set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL) ? errno : 0;
	return -1;
}

int main(int argc, char **argv)
{
	const char *e = getenv("TAGGED_EXPECT");
	int r = argc > 1 ? helper(argv[1]) : -1;

	if (r >= 0)
		return r;
	if (!e || (strcmp(e, "lam") && strcmp(e, "uai") && strcmp(e, "none"))) {
		fprintf(stderr, "set TAGGED_EXPECT=lam|uai|none\n");
		return 2;
	}
	expect = !strcmp(e, "lam") ? LAM : !strcmp(e, "uai") ? UAI : NONE;
	return test_harness_run(argc, argv);
}
