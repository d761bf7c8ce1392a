// SPDX-License-Identifier: GPL-2.0
/*
 * initrd-init: /init of the initramfs that scripts/distro-kernel.sh builds
 * for a distribution's kernel (tests/vm/run --distro).
 *
 * Such a kernel builds 9p and its virtio transport as modules, so it
 * cannot mount the rig's root by itself. This program loads the modules
 * listed in /modules/order, in that order, mounts the root the kernel
 * command line describes (root=, rootfstype=, rootflags=, ro), moves it
 * over / and executes init= there: the rig's own init, as the rig's
 * kernel runs it. Any failure is one line on the console and a reboot,
 * which ends QEMU (-no-reboot).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/module.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE	4
#endif

#define NEW_ROOT	"/newroot"
#define MOD_DIR		"/modules"
#define ARG_MAX_LEN	1024

static void vsay(const char *fmt, va_list ap)
{
	fputs("initrd-init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn)) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fflush(stderr);
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* Without /dev/console in the archive the kernel gave us no stdio. */
static void console(void)
{
	int fd;

	if (fcntl(2, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The value of @key= on the command line @cmdline, or @def. */
static const char *param(const char *cmdline, const char *key, const char *def)
{
	static char vals[4][ARG_MAX_LEN];
	static int next;
	size_t klen = strlen(key);
	const char *p = cmdline, *found = NULL;
	char *v;
	size_t n;

	/* The last one counts, as for the kernel's own parameters. */
	while (*p) {
		p += strspn(p, " \n");
		if (!strncmp(p, key, klen) && p[klen] == '=')
			found = p + klen + 1;
		p += strcspn(p, " \n");
	}
	if (!found)
		return def;
	n = strcspn(found, " \n");
	if (n >= ARG_MAX_LEN)
		fail("%s= is longer than %d bytes", key, ARG_MAX_LEN - 1);
	v = vals[next++ % 4];
	memcpy(v, found, n);
	v[n] = '\0';
	return v;
}

/* Whether the bare word @word is on the command line. */
static int flag(const char *cmdline, const char *word)
{
	size_t len = strlen(word);
	const char *p = cmdline;

	while (*p) {
		p += strspn(p, " \n");
		if (!strncmp(p, word, len) && (p[len] == ' ' || p[len] == '\n' ||
					       p[len] == '\0'))
			return 1;
		p += strcspn(p, " \n");
	}
	return 0;
}

static char *read_file(const char *path)
{
	static char buf[8192];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		fail("cannot read %s: %s", path, strerror(errno));
	close(fd);
	buf[n] = '\0';
	return buf;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* finit_module() each module of /modules/order, then free its file. */
static void load_modules(void)
{
	char *list = strdup(read_file(MOD_DIR "/order"));
	char path[512], *name, *save = NULL;
	int fd, flags, count = 0;

	if (!list)
		fail("out of memory");
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		snprintf(path, sizeof(path), MOD_DIR "/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail("cannot open %s: %s", path, strerror(errno));
		flags = ends_with(name, ".ko") ? 0 : MODULE_INIT_COMPRESSED_FILE;
		if (syscall(SYS_finit_module, fd, "", flags) && errno != EEXIST)
			fail("cannot load %s: %s", name, strerror(errno));
		close(fd);
		unlink(path);
		count++;
	}
	unlink(MOD_DIR "/order");
	rmdir(MOD_DIR);
	free(list);
	say("loaded %d modules", count);
}

int main(void)
{
	const char *root, *type, *opts, *init;
	char *cmdline;
	unsigned long mflags;

	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		fail("cannot mount devtmpfs on /dev: %s", strerror(errno));
	console();
	mkdir("/proc", 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		fail("cannot mount proc on /proc: %s", strerror(errno));
	cmdline = strdup(read_file("/proc/cmdline"));
	if (!cmdline)
		fail("out of memory");

	root = param(cmdline, "root", NULL);
	type = param(cmdline, "rootfstype", NULL);
	opts = param(cmdline, "rootflags", "");
	init = param(cmdline, "init", "/sbin/init");
	if (!root || !type)
		fail("no root= and rootfstype= on the kernel command line");
	mflags = flag(cmdline, "rw") ? 0 : MS_RDONLY;

	load_modules();

	mkdir(NEW_ROOT, 0755);
	if (mount(root, NEW_ROOT, type, mflags, opts))
		fail("cannot mount %s (%s, %s) on " NEW_ROOT ": %s", root, type,
		     opts, strerror(errno));
	umount("/proc");
	umount2("/dev", MNT_DETACH);
	/* The initramfs stays in memory under the new root: empty it. */
	unlink("/init");
	if (chdir(NEW_ROOT))
		fail("cannot enter " NEW_ROOT ": %s", strerror(errno));
	if (mount(".", "/", NULL, MS_MOVE, NULL))
		fail("cannot move " NEW_ROOT " over /: %s", strerror(errno));
	if (chroot("."))
		fail("cannot chroot to the new root: %s", strerror(errno));
	if (chdir("/"))
		fail("cannot enter the new root: %s", strerror(errno));
	say("%s mounted, running %s", root, init);
	execl(init, init, (char *)NULL);
	fail("cannot run %s: %s", init, strerror(errno));
}
