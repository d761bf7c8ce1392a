// SPDX-License-Identifier: GPL-2.0
/*
 * TAGGED_EXPECT=lam|uai|none|refused noncanon raised|untag|exact: what a
 * process that never enabled tagging sees from the system calls that check
 * a user pointer before they use it, for 0x7fff888000000000 (bit 63 clear,
 * non-canonical with 4- and 5-level paging), and from those given a range
 * that crosses the exact limit, 2^47 - PAGE_SIZE (4-level paging only).
 * Where the kernel offers LAM on an Intel CPU ("raised"), USER_PTR_MAX is
 * 2^63 - PAGE_SIZE (kernel/series: "x86/uaccess: Raise the user limit for
 * LAM instead of untagging"): the pointer passes the check and fails only
 * when it is used, if it is, and a crossing range is used up to its first
 * fault. Elsewhere the limit is the top of the user address space and
 * every check refuses both at once: "untag" where the kernel untags
 * before the check (UAI, LAM on another vendor's CPU), "exact" where it
 * neither untags nor raises (no tagging, tagging refused, upstream 6.12).
 *
 *   path                          raised (LAM, Intel)         untag, exact
 *   private FUTEX_WAKE            0 (nobody to wake)          EFAULT
 *   read() from an empty pipe     blocks until a signal;      EFAULT
 *                                 EFAULT once data is there
 *   readv(), iov_base there       the same (iovec import)     EFAULT
 *   io_uring PROVIDE_BUFFERS      0 (buffers taken)           EFAULT
 *   epoll_wait(), timeout 0       0 (no event)                EFAULT
 *   rseq() registration           EFAULT (it reads rseq_cs)   EFAULT
 *   write() of 16 bytes from 8    8 (short)                   EFAULT
 *   below the exact limit
 *   recv() of a 16-byte UDP       EFAULT, and the datagram    EFAULT, the
 *   datagram there                is gone                     datagram stays
 *
 * A pointer with bit 63 set (0xffff888000000000) fails with EFAULT
 * everywhere.
 *
 * rseq() is the one of these paths that glibc takes in every thread, and
 * registration does not stop at the check: 6.12 reads the area's rseq_cs
 * before it records the area, so a pointer that passes the raised limit
 * still fails at once, from that read's fault. Each registration runs in a
 * child that first unregisters the area glibc registered for it (a thread
 * holds one area at most). A tagged alias of a valid area is refused with
 * EFAULT in an untagged process. Once the process enabled tagging it is
 * registered and written by the kernel through the tag where the limit is
 * raised (LAM) or the kernel untags before the check (UAI); with LAM and
 * the exact limit (upstream 6.12, which neither raises it nor untags) it
 * fails with EFAULT still. TAGGED_EXPECT, from the host, says whether the
 * process can enable tagging (lam, uai), cannot (none: ENODEV) or is
 * refused (refused: EPERM). Prints TAP; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/rseq.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"
#include "../lib/uring-one.h"

#define NONCANON	0x7fff888000000000UL
#define KERNELPTR	0xffff888000000000UL
/* The exact user limit with 4-level paging, TASK_SIZE_MAX. */
#define OLD_LIMIT	0x7ffffffff000UL
/* The last page below it, and 16 bytes from 8 below the limit. */
#define LAST_PAGE	(OLD_LIMIT - 4096)
#define ACROSS		((void *)(OLD_LIMIT - 8))
#define ACROSS_LEN	16

static int raised, untag;

/* The area the rseq() children register, as it is or through a tag. */
static struct rseq area;

/* What one rseq() child saw; shared with the parent. */
struct rseq_seen {
	long unregister;	/* of glibc's area: 0 */
	long enable;		/* ARCH_ENABLE_TAGGED_ADDR, if asked for */
	long reg;		/* the registration */
	int cpu_id;		/* area.cpu_id after a yield, read untagged */
};

static struct rseq_seen *seen;

/* seen->reg until rseq() has returned to the child */
#define NOT_RETURNED	(-100000L)

/* -errno of a call that returned -1, else its value. */
static long ret(long r)
{
	return r == -1 ? -errno : r;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * call(fd) on an empty pipe, with a 300 ms timer that interrupts it if it
 * blocks: -EINTR then, what it returned otherwise.
 */
static long timed(long (*call)(int fd, void *p), int fd, void *p)
{
	struct itimerval t = { .it_value = { .tv_usec = 300000 } };
	struct itimerval off = { 0 };
	long r;

	setitimer(ITIMER_REAL, &t, NULL);
	r = ret(call(fd, p));
	setitimer(ITIMER_REAL, &off, NULL);
	return r;
}

static long do_read(int fd, void *p)
{
	return read(fd, p, 8);
}

static long do_readv(int fd, void *p)
{
	struct iovec iov = { .iov_base = p, .iov_len = 8 };

	return readv(fd, &iov, 1);
}

/* One IORING_OP_PROVIDE_BUFFERS of one 64-byte buffer at p: the CQE's res. */
static long provide_buffers(void *p)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_PROVIDE_BUFFERS,
		.fd = 1,			/* one buffer */
		.addr = (uintptr_t)p,
		.len = 64,
		.buf_group = 7,
	};

	return uring_one(&sqe);
}

/* epoll_wait() on an empty epoll set into p, without waiting. */
static long epoll_into(void *p)
{
	int ep = epoll_create1(0);
	long r;

	if (ep < 0)
		return -1000000;
	r = ret(epoll_wait(ep, p, 1, 0));
	close(ep);
	return r;
}

/* write() of ACROSS_LEN bytes from ACROSS to a file in /tmp. */
static long write_across(void)
{
	int fd = open("/tmp/noncanon-write", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long r;

	if (fd < 0)
		return -1000000;
	r = ret(write(fd, ACROSS, ACROSS_LEN));
	close(fd);
	return r;
}

/*
 * A UDP datagram of ACROSS_LEN bytes sent to a socket of this process,
 * received into ACROSS: that receive's answer, then *after the answer of
 * a second receive into a valid buffer without waiting (the datagram's
 * length if it was kept, -EAGAIN if the first receive consumed it).
 */
static long recv_across(long *after)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	char buf[ACROSS_LEN];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	long r;

	struct ifreq lo = { .ifr_name = "lo" };

	*after = -1000000;
	/* The guest's loopback interface may still be down. */
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &lo) ||
	    (lo.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &lo)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) ||
	    sendto(fd, "0123456789abcdef", ACROSS_LEN, 0,
		   (struct sockaddr *)&a, sizeof(a)) != ACROSS_LEN) {
		check(0, "a UDP datagram sent to this process: %s",
		      strerror(errno));
		return -1000000;
	}
	r = ret(recv(fd, ACROSS, ACROSS_LEN, 0));
	*after = ret(recv(fd, buf, sizeof(buf), MSG_DONTWAIT));
	close(fd);
	return r;
}

static const char *answer(long r, char *buf, size_t size)
{
	if (r >= 1000)
		snprintf(buf, size, "killed by signal %ld", r - 1000);
	else if (r < 0 && r > -4096)
		snprintf(buf, size, "%s", strerror(-r));
	else
		snprintf(buf, size, "%ld", r);
	return buf;
}

/* Report a result against the answer wanted. */
static void expect(long got, long want, const char *what)
{
	char g[64], w[64];

	if (got == want)
		check(1, "%s: %s", what, answer(got, g, sizeof(g)));
	else
		check(0, "%s: %s, want %s", what, answer(got, g, sizeof(g)),
		      answer(want, w, sizeof(w)));
}

/*
 * In a child: unregister glibc's area, enable tagging if asked, register
 * an area at p, yield (a return to user that rseq must update the area
 * on) and note area.cpu_id. Returns 0 when the child got through, 1000 +
 * the signal that killed it, 2000 + its exit status otherwise.
 */
static long rseq_in_child(void *p, int enable_tagging)
{
	int status;
	pid_t pid;

	memset(seen, 0, sizeof(*seen));
	seen->reg = NOT_RETURNED;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* glibc 2.35 on registers with at least 32 bytes. */
		unsigned int len = __rseq_size > 32 ? __rseq_size : 32;

		memset(&area, 0, sizeof(area));
		area.cpu_id = RSEQ_CPU_ID_UNINITIALIZED;
		if (__rseq_size)
			seen->unregister =
				ret(syscall(SYS_rseq,
					    (char *)__builtin_thread_pointer() +
					    __rseq_offset, len,
					    RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
		if (enable_tagging)
			seen->enable = ret(arch_prctl(ARCH_ENABLE_TAGGED_ADDR,
						      TAG_BITS));
		seen->reg = ret(syscall(SYS_rseq, p, sizeof(area), 0, RSEQ_SIG));
		sched_yield();
		/* the kernel's write, not one the compiler remembers */
		seen->cpu_id = __atomic_load_n(&area.cpu_id, __ATOMIC_RELAXED);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2000 + 255;
	if (WIFSIGNALED(status))
		return 1000 + WTERMSIG(status);
	return WEXITSTATUS(status) ? 2000 + WEXITSTATUS(status) : 0;
}

/*
 * One rseq() registration at p from a child, against the registration's
 * answer wanted (0 or -errno); an area registered must hold a CPU number
 * and one refused must be untouched.
 */
static void expect_rseq(void *p, int enable_tagging, long want_enable,
			long want, const char *what)
{
	long child = rseq_in_child(p, enable_tagging);
	int cpu_ok = want ? seen->cpu_id == (int)RSEQ_CPU_ID_UNINITIALIZED :
			    seen->cpu_id >= 0;
	char g[64], w[64];

	if (enable_tagging)
		expect(seen->enable, want_enable,
		       "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6) before the next rseq()");
	if (child >= 2000) {
		check(0, "%s: the child failed (%ld)", what, child - 2000);
		return;
	}
	if (child) {	/* SIGSEGV: the kernel could not update the area */
		check(0, "%s: %s, the child %s", what,
		      seen->reg == NOT_RETURNED ? "rseq() did not return" :
		      answer(seen->reg, g, sizeof(g)), answer(child, w, sizeof(w)));
		return;
	}
	if (seen->unregister) {
		check(0, "%s: glibc's area could not be unregistered: %s", what,
		      answer(seen->unregister, g, sizeof(g)));
		return;
	}
	check(seen->reg == want && cpu_ok,
	      "%s: %s%s%s, area.cpu_id %d", what, answer(seen->reg, g, sizeof(g)),
	      seen->reg == want ? "" : ", want ",
	      seen->reg == want ? "" : answer(want, w, sizeof(w)), seen->cpu_id);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	void *nc = (void *)NONCANON, *kp = (void *)KERNELPTR;
	const char *tagging = getenv("TAGGED_EXPECT");
	long want_enable;
	char buf[8];
	int fds[2];

	if (argc != 2 || (strcmp(argv[1], "raised") && strcmp(argv[1], "untag") &&
			  strcmp(argv[1], "exact"))) {
		fprintf(stderr,
			"usage: TAGGED_EXPECT=lam|uai|none|refused noncanon raised|untag|exact\n");
		return 2;
	}
	raised = !strcmp(argv[1], "raised");
	untag = !strcmp(argv[1], "untag");
	if (!tagging)
		tagging = "";
	if (!strcmp(tagging, "lam") || !strcmp(tagging, "uai")) {
		want_enable = 0;
	} else if (!strcmp(tagging, "none")) {
		want_enable = -ENODEV;
	} else if (!strcmp(tagging, "refused")) {
		want_enable = -EPERM;
	} else {
		check(0,
		      "the host says what tagging the process can enable: TAGGED_EXPECT=lam|uai|none|refused, not '%s'",
		      tagging);
		return tap_end();
	}
	sigaction(SIGALRM, &sa, NULL);

	expect(ret(syscall(SYS_futex, nc, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0)),
	       raised ? 0 : -EFAULT, "private FUTEX_WAKE at 0x7fff888000000000");
	expect(ret(syscall(SYS_futex, kp, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0)),
	       -EFAULT, "private FUTEX_WAKE at 0xffff888000000000");

	if (pipe(fds)) {
		check(0, "a pipe: %s", strerror(errno));
		return tap_end();
	}
	expect(timed(do_read, fds[0], nc), raised ? -EINTR : -EFAULT,
	       "read() from an empty pipe into 0x7fff888000000000 (EINTR: it blocked until the timer's signal)");
	expect(timed(do_readv, fds[0], nc), raised ? -EINTR : -EFAULT,
	       "readv() from an empty pipe into 0x7fff888000000000");
	expect(timed(do_read, fds[0], kp), -EFAULT,
	       "read() from an empty pipe into 0xffff888000000000");
	if (write(fds[1], "12345678", 8) != 8) {
		check(0, "a write to the pipe: %s", strerror(errno));
		return tap_end();
	}
	expect(timed(do_read, fds[0], nc), -EFAULT,
	       "read() into 0x7fff888000000000 with data in the pipe");
	expect(timed(do_read, fds[0], buf), 8,
	       "the data is still there for a valid buffer");

	expect(provide_buffers(nc), raised ? 0 : -EFAULT,
	       "io_uring PROVIDE_BUFFERS at 0x7fff888000000000");
	expect(provide_buffers(kp), -EFAULT,
	       "io_uring PROVIDE_BUFFERS at 0xffff888000000000");

	expect(epoll_into(nc), raised ? 0 : -EFAULT,
	       "epoll_wait() into 0x7fff888000000000, timeout 0");
	expect(epoll_into(kp), -EFAULT,
	       "epoll_wait() into 0xffff888000000000, timeout 0");

	if (mmap((void *)LAST_PAGE, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)LAST_PAGE) {
		check(0, "the last page below the exact limit mapped: %s",
		      strerror(errno));
		return tap_end();
	}
	memcpy(ACROSS, "01234567", 8);
	expect(write_across(), raised ? 8 : -EFAULT,
	       "write() of 16 bytes from 8 below the exact limit (8: short, up to the fault)");
	{
		long after, r = recv_across(&after);

		expect(r, -EFAULT,
		       "recv() of a 16-byte UDP datagram into 8 below the exact limit");
		expect(after, raised ? -EAGAIN : ACROSS_LEN,
		       "the datagram after that recv() (EAGAIN: dropped by it)");
	}

	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		check(0, "a shared page: %s", strerror(errno));
		return tap_end();
	}
	check(__rseq_size > 0 && !(__rseq_offset % 32),
	      "glibc registered an rseq area for this thread (%u bytes at %%fs%+ld)",
	      __rseq_size, (long)__rseq_offset);
	expect_rseq(&area, 0, 0, 0, "rseq() registration of a valid area");
	expect_rseq(nc, 0, 0, -EFAULT,
		    "rseq() registration at 0x7fff888000000000");
	expect_rseq(kp, 0, 0, -EFAULT,
		    "rseq() registration at 0xffff888000000000");
	expect_rseq(tag_ptr(&area, 0x2a), 0, 0, -EFAULT,
		    "rseq() registration at a tagged alias of a valid area, tagging not enabled");
	/*
	 * Once tagging is enabled, a tagged pointer passes the user-limit
	 * check where the limit is raised (LAM here) or the tag goes before
	 * the check (UAI); upstream 6.12's LAM does neither (exact limit, no
	 * untag), so there the alias fails as in an untagged process.
	 */
	if (want_enable)
		expect_rseq(tag_ptr(&area, 0x2a), 1, want_enable, -EFAULT,
			    "rseq() registration at a tagged alias of a valid area, tagging not available");
	else if (raised || untag)
		expect_rseq(tag_ptr(&area, 0x2a), 1, 0, 0,
			    "rseq() registration at a tagged alias of a valid area, tagging enabled: the kernel writes the area through the tag");
	else
		expect_rseq(tag_ptr(&area, 0x2a), 1, 0, -EFAULT,
			    "rseq() registration at a tagged alias of a valid area, LAM enabled and the limit exact (upstream 6.12): refused");
	return tap_end();
}
