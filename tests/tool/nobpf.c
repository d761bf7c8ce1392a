// SPDX-License-Identifier: GPL-2.0
/*
 * nobpf [--refuse-tp-btf | --unattached PROG] CMD [ARG...]: run CMD under a seccomp filter on
 * bpf(2) that exec keeps, to give tagtrace answers no guest kernel of the
 * rig gives root (tests/tool/errors-guest.sh, counts-guest.sh):
 *
 * - by default every bpf() call fails with ENOSYS, as on a kernel built
 *   without CONFIG_BPF_SYSCALL;
 * - with --refuse-tp-btf, a kernel that refuses tp_btf programs and
 *   nothing else: each bpf() call goes to this process (a seccomp user
 *   notification), which reads the call's attributes from CMD's memory
 *   and answers EINVAL, as the verifier would, to BPF_PROG_LOAD of a
 *   BPF_PROG_TYPE_TRACING program attached as BPF_TRACE_RAW_TP (tp_btf),
 *   and lets the kernel carry out every other call. This process stays
 *   CMD's parent, passes SIGINT and SIGTERM on to it, and at CMD's end
 *   prints how many loads it refused and exits with CMD's status;
 * - with --unattached PROG, a kernel where the program named PROG
 *   attaches but never runs: the same supervisor answers CMD's
 *   BPF_LINK_CREATE or BPF_RAW_TRACEPOINT_OPEN of that program (how
 *   tp_btf, raw_tp, fentry and fexit attach) with a file descriptor of
 *   /dev/null it puts into CMD, as a link that nothing fires, and lets
 *   every other call through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Install a filter that gives bpf() of this ABI the action on_bpf and
 * allows everything else; flags as for seccomp(SECCOMP_SET_MODE_FILTER).
 * Returns what seccomp() returns (a listener fd with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER), -1 with errno on failure.
 */
static int filter_bpf(__u32 on_bpf, unsigned int flags)
{
	struct sock_filter insns[] = {
		/* Another ABI's call numbers mean other calls: let them be. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, on_bpf),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(insns),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* The listener fd across the fork: the child installs, the parent serves. */
static int send_fd(int sock, int fd)
{
	char data = 0, cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static pid_t child;

static void pass_on(int sig)
{
	kill(child, sig);
}

/*
 * The bpf() call's attributes, read from the caller's memory
 * (/proc/PID/mem: the guest kernel has no process_vm_readv()); the
 * notification must still be pending after the read, so that the memory
 * was the caller's. False, said on stderr, when they cannot be read.
 */
static bool read_attr(int listener, const struct seccomp_notif *req,
		      union bpf_attr *attr)
{
	size_t size = req->data.args[2];
	__u64 id = req->id;
	char path[32];
	ssize_t n;
	int fd;

	memset(attr, 0, sizeof(*attr));
	if (size > sizeof(*attr))
		size = sizeof(*attr);
	snprintf(path, sizeof(path), "/proc/%u/mem", req->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : pread(fd, attr, size, req->data.args[1]);
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)size) {
		fprintf(stderr, "nobpf: cannot read a bpf() call's attributes: %s\n",
			n < 0 ? strerror(errno) : "short read");
		return false;
	}
	return !ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
}

/* Is this bpf() call a tp_btf program's load? */
static int is_tp_btf_load(int listener, const struct seccomp_notif *req)
{
	union bpf_attr attr;

	if (req->data.args[0] != BPF_PROG_LOAD ||
	    !read_attr(listener, req, &attr))
		return 0;
	return attr.prog_type == BPF_PROG_TYPE_TRACING &&
	       attr.expected_attach_type == BPF_TRACE_RAW_TP;
}

static const char *unattached;	/* --unattached PROG */

/*
 * Is this bpf() call the attach of the program named unattached? The
 * program fd is CMD's: a copy of it (pidfd_getfd) tells its name.
 */
static int is_unattached(int listener, const struct seccomp_notif *req,
			 int pidfd)
{
	struct bpf_prog_info info;
	union bpf_attr attr, get;
	int n, prog;

	if (!unattached || (req->data.args[0] != BPF_RAW_TRACEPOINT_OPEN &&
			    req->data.args[0] != BPF_LINK_CREATE) ||
	    !read_attr(listener, req, &attr))
		return 0;
	prog = syscall(__NR_pidfd_getfd, pidfd,
		       req->data.args[0] == BPF_LINK_CREATE ?
		       attr.link_create.prog_fd : attr.raw_tracepoint.prog_fd, 0);
	if (prog < 0) {
		perror("nobpf: pidfd_getfd");
		return 0;
	}
	memset(&info, 0, sizeof(info));
	memset(&get, 0, sizeof(get));
	get.info.bpf_fd = prog;
	get.info.info_len = sizeof(info);
	get.info.info = (__u64)(unsigned long)&info;
	n = syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &get, sizeof(get));
	close(prog);
	return !n && !strncmp(info.name, unattached, sizeof(info.name));
}

/* A link that nothing fires: /dev/null, put into CMD as the call's result. */
static int fake_link(int listener, const struct seccomp_notif *req)
{
	struct seccomp_notif_addfd addfd = {
		.id = req->id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.newfd_flags = O_CLOEXEC,
	};
	int ret;

	addfd.srcfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((int)addfd.srcfd < 0)
		return -1;
	ret = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
	close(addfd.srcfd);
	return ret < 0 ? -1 : 0;
}

/*
 * Answer CMD's bpf() calls until it exits (its pidfd readable: the
 * listener hangs up only once CMD is reaped); its exit status.
 */
static int supervise(int listener)
{
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	unsigned long refused = 0, passed = 0, faked = 0;
	struct pollfd p[2] = {
		{ .fd = listener, .events = POLLIN },
		{ .fd = syscall(__NR_pidfd_open, child, 0), .events = POLLIN },
	};
	int status;

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes)) {
		perror("nobpf: SECCOMP_GET_NOTIF_SIZES");
		return -1;
	}
	req = calloc(1, sizes.seccomp_notif > sizeof(*req) ?
		     sizes.seccomp_notif : sizeof(*req));
	resp = calloc(1, sizes.seccomp_notif_resp > sizeof(*resp) ?
		      sizes.seccomp_notif_resp : sizeof(*resp));
	if (!req || !resp)
		return -1;
	if (p[1].fd < 0) {
		perror("nobpf: pidfd_open");
		return -1;
	}
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("nobpf: poll");
			return -1;
		}
		if (!(p[0].revents & POLLIN))
			break;	/* CMD exited, or the filter has no task left */
		memset(req, 0, sizes.seccomp_notif);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req)) {
			if (errno == EINTR || errno == ENOENT)
				continue;	/* a signal; the caller went away */
			perror("nobpf: SECCOMP_IOCTL_NOTIF_RECV");
			return -1;
		}
		memset(resp, 0, sizes.seccomp_notif_resp);
		resp->id = req->id;
		if (is_unattached(listener, req, p[1].fd)) {
			/* Answered by the fd it put into CMD. */
			if (fake_link(listener, req)) {
				perror("nobpf: SECCOMP_IOCTL_NOTIF_ADDFD");
				return -1;
			}
			faked++;
			continue;
		}
		if (!unattached && is_tp_btf_load(listener, req)) {
			resp->error = -EINVAL;
			refused++;
		} else {
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			passed++;
		}
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) &&
		    errno != ENOENT) {
			perror("nobpf: SECCOMP_IOCTL_NOTIF_SEND");
			return -1;
		}
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (unattached)
		fprintf(stderr, "nobpf: left %lu attaches of %s undone, passed %lu bpf() calls\n",
			faked, unattached, passed);
	else
		fprintf(stderr, "nobpf: refused %lu tp_btf loads, passed %lu bpf() calls\n",
			refused, passed);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* CMD under a supervisor of its bpf() calls. */
static int supervised(char **argv)
{
	struct sigaction sa = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
	int sv[2], listener, status;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("nobpf: socketpair");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("nobpf: fork");
		return 1;
	}
	if (child == 0) {
		listener = filter_bpf(SECCOMP_RET_USER_NOTIF,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (listener < 0 || send_fd(sv[1], listener)) {
			perror("nobpf: seccomp listener");
			_exit(1);
		}
		close(listener);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	close(sv[1]);
	listener = recv_fd(sv[0]);
	if (listener < 0) {
		waitpid(child, NULL, 0);
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	status = supervise(listener);
	return status < 0 ? 1 : status;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--refuse-tp-btf"))
		return supervised(argv + 2);
	if (argc > 3 && !strcmp(argv[1], "--unattached")) {
		unattached = argv[2];
		return supervised(argv + 3);
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: nobpf [--refuse-tp-btf | --unattached PROG] CMD [ARG...]\n");
		return 2;
	}
	if (filter_bpf(SECCOMP_RET_ERRNO | ENOSYS, 0) < 0) {
		perror("nobpf: seccomp filter");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
