// SPDX-License-Identifier: GPL-2.0
/*
 * noncanon raised|exact: what a process that never enabled tagging sees
 * from the system calls that check a user pointer before they use it, for
 * 0x7fff888000000000 (bit 63 clear, non-canonical with 4- and 5-level
 * paging). Where the kernel offers LAM, USER_PTR_MAX is 2^63 - PAGE_SIZE
 * (kernel/series 0040): the pointer passes the check and fails only when
 * it is used, if it is. Elsewhere the limit is the top of the user address
 * space and every check refuses it at once.
 *
 *   path                          raised (LAM offered)        exact
 *   private FUTEX_WAKE            0 (nobody to wake)          EFAULT
 *   read() from an empty pipe     blocks until a signal;      EFAULT
 *                                 EFAULT once data is there
 *   readv(), iov_base there       the same (iovec import)     EFAULT
 *   io_uring PROVIDE_BUFFERS      0 (buffers taken)           EFAULT
 *
 * A pointer with bit 63 set (0xffff888000000000) fails with EFAULT
 * everywhere. Prints TAP; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tap-check.h"
#include "../lib/uring-one.h"

#define NONCANON	0x7fff888000000000UL
#define KERNELPTR	0xffff888000000000UL

static int raised;

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

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	void *nc = (void *)NONCANON, *kp = (void *)KERNELPTR;
	char buf[8];
	int fds[2];

	if (argc != 2 || (strcmp(argv[1], "raised") && strcmp(argv[1], "exact"))) {
		fprintf(stderr, "usage: noncanon raised|exact\n");
		return 2;
	}
	raised = !strcmp(argv[1], "raised");
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
	return tap_end();
}
