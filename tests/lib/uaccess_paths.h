/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of the ways a system call reaches user memory, for the guest
 * test programs: each path makes one call with the pointer under test
 * where the kernel reads or writes user memory, and returns the call's
 * result, -errno if it failed. Every path's memory lies in the page at p
 * (a pointer to uctx.obj, tagged or not, or a bad pointer), at p + off2
 * for a second user pointer where the path has one.
 */
#ifndef TAGTRACE_TESTS_UACCESS_PATHS_H
#define TAGTRACE_TESTS_UACCESS_PATHS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/io_uring.h>

#include "uring-one.h"

struct uctx {
	int p[2];	/* a pipe, both ends non-blocking */
	int q[2];	/* a second pipe */
	int ep;		/* epoll: both pipes' write ends, always writable */
	int s[2];	/* a datagram socket pair, both ends non-blocking */
	char *obj;	/* the page the good pointers point at */
};

static inline long up_ret(long r)
{
	return r < 0 ? -errno : r;
}

static inline void up_drain(struct uctx *c)
{
	char buf[64];

	while (read(c->p[0], buf, sizeof(buf)) > 0)
		;
}

/* Empty the pipe, then put s in it. */
static inline int up_fill(struct uctx *c, const char *s)
{
	up_drain(c);
	return write(c->p[1], s, strlen(s)) == (ssize_t)strlen(s);
}

/* copy_to_user() */
static inline long up_read(struct uctx *c, void *p)
{
	return up_fill(c, "hello") ? up_ret(read(c->p[0], p, 5)) : -1000;
}

/* copy_from_user() */
static inline long up_write(struct uctx *c, void *p)
{
	up_drain(c);
	memcpy(c->obj, "hello", 5);
	return up_ret(write(c->p[1], p, 5));
}

/* copy_to_user() of a struct */
static inline long up_uname(struct uctx *c __attribute__((unused)), void *p)
{
	return up_ret(uname(p));
}

/* get_user(): FIONBIO reads an int (1: the pipe stays non-blocking) */
static inline long up_get_user(struct uctx *c, void *p)
{
	*(int *)c->obj = 1;
	return up_ret(ioctl(c->p[0], FIONBIO, p));
}

/* put_user(): FIONREAD writes an int */
static inline long up_put_user(struct uctx *c, void *p)
{
	return up_fill(c, "ab") ? up_ret(ioctl(c->p[0], FIONREAD, p)) : -1000;
}

/* strncpy_from_user(): a path */
static inline long up_open(struct uctx *c, void *p)
{
	long fd;

	strcpy(c->obj, "/proc/self/comm");
	fd = up_ret(open(p, O_RDONLY));
	if (fd >= 0)
		close(fd);
	return fd;
}

/* import_iovec(): the iovec at p + 256, naming the buffer at p */
#define UP_IOV_OFF	256
static inline long up_readv(struct uctx *c, void *p)
{
	struct iovec *iov = (struct iovec *)(c->obj + UP_IOV_OFF);

	iov->iov_base = p;
	iov->iov_len = 4;
	if (!up_fill(c, "abcd"))
		return -1000;
	return up_ret(readv(c->p[0], (struct iovec *)((char *)p + UP_IOV_OFF), 1));
}

/* copy_from_user() of the pollfd, then unsafe_put_user() of revents */
static inline long up_poll(struct uctx *c, void *p)
{
	struct pollfd *pfd = (struct pollfd *)c->obj;

	pfd->fd = c->p[1];
	pfd->events = POLLOUT;
	up_drain(c);
	return up_ret(poll(p, 1, 0));
}

/* access_ok() once, then __put_user()s: two events */
static inline long up_epoll_wait(struct uctx *c, void *p)
{
	return up_ret(epoll_wait(c->ep, p, 2, 0));
}

/* get_futex_key(): access_ok() of a private futex */
static inline long up_futex_wake(struct uctx *c __attribute__((unused)), void *p)
{
	return up_ret(syscall(SYS_futex, p, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
}

/* futex_get_value_locked(): the word is 1, not 2, so EAGAIN: it was read */
static inline long up_futex_wait(struct uctx *c, void *p)
{
	struct timespec t = { 0, 1000 };
	long r;

	*(uint32_t *)c->obj = 1;
	r = up_ret(syscall(SYS_futex, p, FUTEX_WAIT_PRIVATE, 2, &t, NULL, 0));
	return r == -EAGAIN ? 0 : r;
}

/*
 * A minimal io_uring: one IORING_OP_READ of fd into buf. The CQE's res,
 * or -10001 and less if the ring itself failed.
 */
static inline int uring_read(int fd, void *buf, unsigned int len)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_READ,
		.fd = fd,
		.addr = (uintptr_t)buf,
		.len = len,
	};

	return uring_one(&sqe);
}

/* io_uring: IORING_OP_READ with the SQE's addr at p */
static inline long up_uring_read(struct uctx *c, void *p)
{
	return up_fill(c, "hello") ? uring_read(c->p[0], p, 5) : -1000;
}

/*
 * io_uring: IORING_OP_RECVMSG into a provided buffer (IOSQE_BUFFER_SELECT),
 * the msghdr's msg_iov at p. io_msg_copy_hdr() reads only the iovec's
 * iov_len, at p + 8, and checks it with access_ok() between
 * user_access_begin() and user_access_end(): the one user-limit check
 * here made with user access on.
 */
#define UP_RECVMSG_IOV_LEN	8
static inline long up_uring_recvmsg(struct uctx *c, void *p)
{
	struct iovec *iov = (struct iovec *)c->obj;
	struct msghdr *mh = (struct msghdr *)(c->obj + 512);
	char buf[64];
	struct io_uring_sqe sqe[2] = {
		{
			.opcode = IORING_OP_PROVIDE_BUFFERS,
			.fd = 1,
			.addr = (uintptr_t)(c->obj + 1024),
			.len = 64,
			.buf_group = 1,
		}, {
			.opcode = IORING_OP_RECVMSG,
			.fd = c->s[0],
			.addr = (uintptr_t)mh,
			.flags = IOSQE_BUFFER_SELECT,
			.buf_group = 1,
			.msg_flags = MSG_DONTWAIT,
		},
	};

	while (recv(c->s[0], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	iov->iov_base = NULL;
	iov->iov_len = 64;
	memset(mh, 0, sizeof(*mh));
	mh->msg_iov = p;
	mh->msg_iovlen = 1;
	if (send(c->s[1], "hello", 5, 0) != 5)
		return -1000;
	return uring_ops(sqe, 2);
}

/*
 * checks, checks2: the user-limit checks a call runs on the pointer at p
 * and at p + off2, each stripping its tag once and firing tagged_addr_untag
 * once (tests/kernel/untag_paths.c), on 6.12 with the series:
 *   read         vfs_read()'s access_ok(), then _copy_to_iter()'s
 *   write        vfs_write()'s access_ok(), then _copy_from_iter()'s
 *   iovec        the buffer: import_ubuf() and _copy_to_iter(); the iovec
 *                array: copy_iovec_from_user()
 *   poll         _copy_from_user() of the fds, do_sys_poll()'s
 *                user_write_access_begin() for the results
 *   io_uring     import_ubuf() and _copy_to_iter()
 *   recvmsg      io_uring's io_msg_copy_hdr(): access_ok() of the iovec's
 *                iov_len (at p + 8) with user access on
 * and one check on every other path. __get_user()/__put_user() (epoll's
 * events, futex_get_value_locked()) run after a check and strip nothing.
 *
 * check_only: the call checks the pointer (access_ok()) and never uses it.
 * On LAM hardware the user limit is 2^63 - PAGE_SIZE (kernel/series 5/0010),
 * so there a non-canonical pointer with bit 63 clear passes and is treated
 * as an unmapped one is: futex_wake wakes nobody and returns 0.
 */
static const struct uaccess_path {
	const char *name;
	long (*call)(struct uctx *c, void *p);
	size_t off2;	/* a second user pointer at p + off2, if not 0 */
	int checks, checks2;
	int check_only;
} uaccess_paths[] = {
	{ "read", up_read, 0, 2, 0, 0 },
	{ "write", up_write, 0, 2, 0, 0 },
	{ "uname", up_uname, 0, 1, 0, 0 },
	{ "get_user", up_get_user, 0, 1, 0, 0 },
	{ "put_user", up_put_user, 0, 1, 0, 0 },
	{ "strncpy_from_user", up_open, 0, 1, 0, 0 },
	{ "iovec", up_readv, UP_IOV_OFF, 2, 1, 0 },
	{ "poll", up_poll, 0, 2, 0, 0 },
	{ "epoll_wait", up_epoll_wait, 0, 1, 0, 0 },
	{ "futex_wake", up_futex_wake, 0, 1, 0, 1 },
	{ "futex_wait", up_futex_wait, 0, 1, 0, 0 },
	{ "io_uring_read", up_uring_read, 0, 2, 0, 0 },
	{ "io_uring_recvmsg", up_uring_recvmsg, UP_RECVMSG_IOV_LEN, 0, 1, 0 },
};

#define NR_UACCESS_PATHS ((int)(sizeof(uaccess_paths) / sizeof(uaccess_paths[0])))

static inline int uctx_init(struct uctx *c)
{
	struct epoll_event ev = { .events = EPOLLOUT };

	c->obj = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->obj == MAP_FAILED || pipe2(c->p, O_NONBLOCK) || pipe(c->q))
		return -1;
	c->ep = epoll_create1(0);
	return c->ep < 0 ||
	       socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, c->s) ||
	       epoll_ctl(c->ep, EPOLL_CTL_ADD, c->p[1], &ev) ||
	       epoll_ctl(c->ep, EPOLL_CTL_ADD, c->q[1], &ev) ? -1 : 0;
}

static inline void uctx_fini(struct uctx *c)
{
	close(c->p[0]);
	close(c->p[1]);
	close(c->q[0]);
	close(c->q[1]);
	close(c->ep);
	close(c->s[0]);
	close(c->s[1]);
	munmap(c->obj, 4096);
}

#endif
