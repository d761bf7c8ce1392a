// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 half of the tagging uABI, booted (tests/kernel/test-arm64.sh):
 * PR_SET/GET_TAGGED_ADDR_CTRL with the nr_bits/offset arguments of
 * kernel/series 0013, the old three-argument calls, MTE's fields beside
 * them, the ptrace regset and abi.tagged_addr_disabled.
 *
 * Top Byte Ignore has one geometry: a request for 1 to 8 bits gets 8 at
 * 56, anything else is -EINVAL, and a call that fails writes nothing back
 * and changes no state. Each case runs in a child of its own, as the
 * tagging state is inherited and cannot be turned off again with MTE
 * fields set. Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <elf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/prctl.h>

#include "../lib/tap-check.h"

#ifndef NT_ARM_TAGGED_ADDR_CTRL
#define NT_ARM_TAGGED_ADDR_CTRL	0x409
#endif

#define UNSET		(-77)	/* what the kernel must not overwrite */
#define SYSCTL		"/proc/sys/abi/tagged_addr_disabled"

/* What a child saw, in memory shared with the parent. */
struct seen {
	long ret;	/* the call under test */
	int err;	/* its errno */
	int bits, shift;
	long ctrl;	/* PR_GET_TAGGED_ADDR_CTRL afterwards */
	int deref;	/* a tagged load and store worked */
};

static struct seen *seen;

static long set_ctrl(unsigned long flags, int *bits, int *shift)
{
	return prctl(PR_SET_TAGGED_ADDR_CTRL, flags, bits, shift, 0);
}

static long get_ctrl(int *bits, int *shift)
{
	return prctl(PR_GET_TAGGED_ADDR_CTRL, bits, shift, 0, 0);
}

static void *tagged(void *p, unsigned int tag)
{
	return (void *)(((uintptr_t)p & ~(0xffUL << 56)) |
			((uintptr_t)tag << 56));
}

/* Does write(2) accept a tagged buffer? The kernel untags only if enabled. */
static int tagged_syscall_works(void)
{
	static char buf[16] = "tagged";
	int fd[2], ok;

	if (pipe(fd))
		return 0;
	ok = write(fd[1], tagged(buf, 0x2a), 6) == 6;
	close(fd[0]);
	close(fd[1]);
	return ok;
}

/* Run fn in a child; its view ends up in *seen. */
static void in_child(void (*fn)(unsigned long), unsigned long arg)
{
	pid_t pid;
	int st;

	memset(seen, 0, sizeof(*seen));
	seen->bits = seen->shift = UNSET;
	seen->ret = -999;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		seen->ret = -1000;
}

/* SET with nr_bits = arg, both result pointers given. */
static void ask_bits(unsigned long want)
{
	seen->bits = (int)want;
	errno = 0;
	seen->ret = set_ctrl(PR_TAGGED_ADDR_ENABLE, &seen->bits, &seen->shift);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
	seen->deref = tagged_syscall_works();
}

static void ask_old_form(unsigned long arg5)
{
	errno = 0;
	seen->ret = prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE,
			  0, 0, arg5);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
	seen->deref = tagged_syscall_works();
}

/* GET with pointers, after enabling (arg 1) or not (arg 0). */
static void get_geometry(unsigned long enable)
{
	if (enable && set_ctrl(PR_TAGGED_ADDR_ENABLE, NULL, NULL))
		return;
	errno = 0;
	seen->ret = get_ctrl(&seen->bits, &seen->shift);
	seen->err = errno;
}

static void get_with_arg4(unsigned long unused)
{
	(void)unused;
	errno = 0;
	seen->ret = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 1, 0);
	seen->err = errno;
}

/* An enable whose offset pointer cannot be written: nothing changes. */
static void bad_offset(unsigned long unused)
{
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	(void)unused;
	seen->bits = 4;
	errno = 0;
	seen->ret = set_ctrl(PR_TAGGED_ADDR_ENABLE, &seen->bits, ro);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
	seen->deref = tagged_syscall_works();
}

/* A refused mode (an unknown flag bit): -EINVAL, nothing written. */
static void bad_flags(unsigned long unused)
{
	(void)unused;
	seen->bits = 8;
	errno = 0;
	seen->ret = set_ctrl(PR_TAGGED_ADDR_ENABLE | (1UL << 30), &seen->bits,
			     &seen->shift);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
}

/* MTE's fields ride in the flags word beside the new arguments. */
static void mte_fields(unsigned long flags)
{
	seen->bits = 8;
	errno = 0;
	seen->ret = set_ctrl(flags, &seen->bits, &seen->shift);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
}

static void mte_fields_old(unsigned long flags)
{
	errno = 0;
	seen->ret = prctl(PR_SET_TAGGED_ADDR_CTRL, flags, 0, 0, 0);
	seen->err = errno;
	seen->ctrl = get_ctrl(NULL, NULL);
}

static int write_sysctl(const char *val)
{
	FILE *f = fopen(SYSCTL, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void test_geometry(void)
{
	int want;

	for (want = -1; want <= 9; want++) {
		in_child(ask_bits, (unsigned long)want);
		if (want >= 1 && want <= 8)
			check(seen->ret == 0 && seen->bits == 8 &&
			      seen->shift == 56 &&
			      seen->ctrl == PR_TAGGED_ADDR_ENABLE && seen->deref,
			      "asking %d bits grants 8 at 56 and enables (ret %ld errno %d, got %d at %d, ctrl %#lx, tagged write %d)",
			      want, seen->ret, seen->err, seen->bits,
			      seen->shift, seen->ctrl, seen->deref);
		else
			check(seen->ret == -1 && seen->err == EINVAL &&
			      seen->bits == want && seen->shift == UNSET &&
			      seen->ctrl == 0 && !seen->deref,
			      "asking %d bits is EINVAL, writes nothing and leaves tagging off (ret %ld errno %d, nr_bits %d offset %d, ctrl %#lx)",
			      want, seen->ret, seen->err, seen->bits,
			      seen->shift, seen->ctrl);
	}
}

static void test_old_forms(void)
{
	in_child(ask_old_form, 0);
	check(seen->ret == 0 && seen->ctrl == PR_TAGGED_ADDR_ENABLE &&
	      seen->deref,
	      "the three-argument SET (arg3..5 zero) still enables (ret %ld errno %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->ctrl);
	in_child(ask_old_form, 1);
	check(seen->ret == -1 && seen->err == EINVAL && seen->ctrl == 0,
	      "SET with arg5 non-zero is EINVAL (ret %ld errno %d)",
	      seen->ret, seen->err);
	in_child(get_with_arg4, 0);
	check(seen->ret == -1 && seen->err == EINVAL,
	      "GET with arg4 non-zero is EINVAL (ret %ld errno %d)",
	      seen->ret, seen->err);
	in_child(get_geometry, 0);
	check(seen->ret == 0 && seen->bits == 8 && seen->shift == UNSET,
	      "GET while disabled: 0, nr_bits says what an enable gives (8), offset untouched (got %ld, %d, %d)",
	      seen->ret, seen->bits, seen->shift);
	in_child(get_geometry, 1);
	check(seen->ret == PR_TAGGED_ADDR_ENABLE && seen->bits == 8 &&
	      seen->shift == 56,
	      "GET while enabled: ENABLE, 8 bits at 56 (got %#lx, %d, %d)",
	      seen->ret, seen->bits, seen->shift);
}

static void test_failures(void)
{
	in_child(bad_offset, 0);
	check(seen->ret == -1 && seen->err == EFAULT && seen->bits == 4 &&
	      seen->ctrl == 0 && !seen->deref,
	      "an enable with an unwritable offset is EFAULT, nr_bits unwritten, tagging off (ret %ld errno %d, nr_bits %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->bits, seen->ctrl);
	in_child(bad_flags, 0);
	check(seen->ret == -1 && seen->err == EINVAL && seen->bits == 8 &&
	      seen->shift == UNSET && seen->ctrl == 0,
	      "an enable with an unknown flag bit is EINVAL and writes nothing (ret %ld errno %d, %d at %d, ctrl %#lx)",
	      seen->ret, seen->err, seen->bits, seen->shift, seen->ctrl);
}

/*
 * MTE's fields read back as the unpatched kernel gives them: the TCF
 * modes and the tag inclusion mask as set, and GET's value unchanged by
 * the new arguments.
 */
static void test_mte(void)
{
	static const unsigned long modes[] = {
		PR_MTE_TCF_NONE, PR_MTE_TCF_SYNC, PR_MTE_TCF_ASYNC,
		PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC,
	};
	unsigned long flags, mask = 0x5a5aUL << PR_MTE_TAG_SHIFT;
	unsigned int i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		flags = PR_TAGGED_ADDR_ENABLE | modes[i] | mask;
		in_child(mte_fields, flags);
		check(seen->ret == 0 && seen->bits == 8 && seen->shift == 56 &&
		      (unsigned long)seen->ctrl == flags,
		      "MTE TCF %#lx with tag mask 0x5a5a: GET returns the flags as set (%#lx, want %#lx), 8 at 56",
		      modes[i], seen->ctrl, flags);
		in_child(mte_fields_old, flags);
		check(seen->ret == 0 && (unsigned long)seen->ctrl == flags,
		      "the same through the three-argument SET (%#lx)",
		      seen->ctrl);
	}
}

/* A debugger reads and writes the control through the regset. */
static void test_ptrace(void)
{
	unsigned long ctrl = 0;
	struct iovec iov = { &ctrl, sizeof(ctrl) };
	long r1, r2, want = PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC;
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (set_ctrl(want, NULL, NULL) ||
		    ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(2);
		raise(SIGSTOP);
		/* After the debugger's SETREGSET: exit with what GET says. */
		_exit(get_ctrl(NULL, NULL) == PR_TAGGED_ADDR_ENABLE ? 0 : 3);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		check(0, "child set its control and stopped for its tracer (status %#x)",
		      st);
		return;
	}
	r1 = ptrace(PTRACE_GETREGSET, pid, NT_ARM_TAGGED_ADDR_CTRL, &iov);
	check(r1 == 0 && (long)ctrl == want,
	      "PTRACE_GETREGSET NT_ARM_TAGGED_ADDR_CTRL reads the child's control (%ld, %#lx, want %#lx)",
	      r1, ctrl, want);
	ctrl = PR_TAGGED_ADDR_ENABLE;
	r2 = ptrace(PTRACE_SETREGSET, pid, NT_ARM_TAGGED_ADDR_CTRL, &iov);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	waitpid(pid, &st, 0);
	check(r2 == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "PTRACE_SETREGSET writes it: the child's GET then says ENABLE only (%ld, status %#x)",
	      r2, st);
}

static void test_sysctl(void)
{
	if (write_sysctl("1")) {
		check(0, "write 1 to " SYSCTL ": %s", strerror(errno));
		return;
	}
	in_child(ask_bits, 8);
	check(seen->ret == -1 && seen->err == EINVAL && seen->bits == 8 &&
	      seen->shift == UNSET && seen->ctrl == 0,
	      "abi.tagged_addr_disabled=1: an enable is EINVAL and writes nothing (ret %ld errno %d, %d at %d)",
	      seen->ret, seen->err, seen->bits, seen->shift);
	in_child(get_geometry, 0);
	check(seen->ret == 0 && seen->bits == 0 && seen->shift == UNSET,
	      "abi.tagged_addr_disabled=1: GET says an enable would give 0 bits (%ld, %d, %d)",
	      seen->ret, seen->bits, seen->shift);
	check(write_sysctl("0") == 0, "abi.tagged_addr_disabled back to 0");
	in_child(ask_bits, 8);
	check(seen->ret == 0 && seen->bits == 8 && seen->shift == 56,
	      "and enabling works again (ret %ld, %d at %d)", seen->ret,
	      seen->bits, seen->shift);
}

int main(void)
{
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	test_geometry();
	test_old_forms();
	test_failures();
	test_mte();
	test_ptrace();
	test_sysctl();
	return tap_end();
}
