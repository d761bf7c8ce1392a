// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace-init: PID 1 of the rig's guest (tests/vm/run).
 *
 * The host root is mounted read-only over 9p. This program mounts the
 * pseudo filesystems and a writable /tmp, runs the command the host wrote
 * into its run directory with the host's cwd and environment, sends the
 * command's output to the second serial port, and reports the exit status
 * through QEMU's isa-debug-exit port. The kernel log stays on ttyS0.
 *
 * The arm64 rig (tests/vm/run --arch arm64, QEMU's virt machine) has one
 * PL011 for the kernel log and no I/O ports: there the output goes to a
 * virtio console and the status only to the kernel log's "exit N" line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __x86_64__
#include <sys/io.h>
#endif
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#ifdef __x86_64__
#define DEBUG_EXIT_PORT	0xf4
#define OUT_TTY		"/dev/ttyS1"
#else
#define OUT_TTY		"/dev/hvc0"
#endif
#define HOST_TMP	"/run/host-tmp"

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("tagtrace-init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void mnt(const char *src, const char *dst, const char *type,
		unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data) && errno != EBUSY)
		say("mount %s on %s: %s", type ? type : src, dst, strerror(errno));
}

/* Read a whole file into a NUL-terminated buffer; *len gets its size. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		say("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += r;
		if (n + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				return NULL;
		}
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Split a buffer of NUL-terminated strings into a NULL-terminated vector. */
static char **split0(char *buf, size_t len)
{
	size_t i, n = 0, k = 0;
	char **v;

	for (i = 0; i < len; i++)
		n += buf[i] == '\0';
	v = calloc(n + 2, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	return v;
}

/* The run directory's path, from tagtrace.run= on the kernel command line. */
static char *run_dir(void)
{
	char *cmdline = slurp("/proc", "cmdline", NULL);
	char *p, *end;

	p = cmdline ? strstr(cmdline, "tagtrace.run=") : NULL;
	if (!p)
		return NULL;
	p += strlen("tagtrace.run=");
	end = p + strcspn(p, " \n");
	*end = '\0';
	return p;
}

/*
 * /tmp is a fresh tmpfs, which hides the host's /tmp. A run directory or a
 * cwd under the host's /tmp (a clone in /tmp/x) is bound back in, read-only.
 */
static void keep_host_tmp(const char *path)
{
	char top[4096], src[4200];
	size_t n;

	if (strncmp(path, "/tmp/", 5))
		return;
	n = 5 + strcspn(path + 5, "/");
	if (n >= sizeof(top))
		return;
	memcpy(top, path, n);
	top[n] = '\0';
	snprintf(src, sizeof(src), HOST_TMP "%s", top + 4);
	if (access(top, F_OK) == 0)
		return;
	mnt(src, top, NULL, MS_BIND | MS_REC, NULL);
}

static void setup_mounts(void)
{
	mnt("proc", "/proc", "proc", 0, NULL);
	mnt("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mnt("devpts", "/dev/pts", "devpts", 0, NULL);
	mnt("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	mnt("sysfs", "/sys", "sysfs", 0, NULL);
	mnt("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mnt("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mnt("bpf", "/sys/fs/bpf", "bpf", 0, NULL);
	mnt("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mnt("/tmp", HOST_TMP, NULL, MS_BIND | MS_REC, NULL);
	mnt("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
}

/* Command output goes out raw: no \n -> \r\n, no echo of guest input. */
static int open_output(void)
{
	struct termios t;
	int fd = open(OUT_TTY, O_RDWR | O_NOCTTY);

	if (fd < 0) {
		say("open %s: %s", OUT_TTY, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

static void report_and_halt(int status, int out)
{
	if (out >= 0)
		tcdrain(out);
	/* On a line of its own, even if the kernel was mid-line. */
	fputc('\n', stderr);
	say("exit %d", status);
	fflush(stderr);
#ifdef DEBUG_EXIT_PORT
	if (ioperm(DEBUG_EXIT_PORT, 1, 1) == 0)
		outb(status, DEBUG_EXIT_PORT);
	else
		say("ioperm: %s", strerror(errno));
#endif
	/*
	 * No ACPI in the x86 guest, PSCI on arm64: a reboot ends QEMU, which
	 * runs -no-reboot.
	 */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

int main(void)
{
	char *dir, *cwd, *argbuf, *envbuf, **argv, **envp;
	size_t alen, elen;
	int out, status, code = 127;
	pid_t child, pid;

	setup_mounts();
	say("started");
	dir = run_dir();
	if (!dir) {
		say("no tagtrace.run= on the kernel command line");
		report_and_halt(127, -1);
	}
	keep_host_tmp(dir);
	cwd = slurp(dir, "cwd", NULL);
	argbuf = slurp(dir, "argv", &alen);
	envbuf = slurp(dir, "env", &elen);
	if (!cwd || !argbuf || !envbuf || !alen)
		report_and_halt(127, -1);
	argv = split0(argbuf, alen);
	envp = split0(envbuf, elen);
	keep_host_tmp(cwd);
	out = open_output();

	child = fork();
	if (child == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
		}
		if (chdir(cwd)) {
			fprintf(stderr, "tagtrace-init: chdir %s: %s\n", cwd,
				strerror(errno));
			_exit(127);
		}
		setsid();
		environ = envp;
		execvp(argv[0], argv);
		fprintf(stderr, "tagtrace-init: %s: %s\n", argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (child < 0) {
		say("fork: %s", strerror(errno));
		report_and_halt(127, out);
	}

	/* As PID 1, reap every orphan until the command itself is done. */
	while ((pid = wait(&status)) != child) {
		if (pid < 0 && errno != EINTR) {
			say("wait: %s", strerror(errno));
			report_and_halt(127, out);
		}
	}
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	kill(-1, SIGKILL);
	while (wait(NULL) > 0)
		;
	report_and_halt(code, out);
	return 0;
}
