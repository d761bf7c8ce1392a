// SPDX-License-Identifier: GPL-2.0
/*
 * s3_tagged: a process with pointer tagging on puts the machine to sleep
 * (ACPI S3, suspend to RAM) and dereferences its tagged pointer as soon as
 * its write to /sys/power/state returns.
 *
 *   s3_tagged lam|uai fixed|warn [lass]
 *
 * The wakeup code restores CR3, CR4 and EFER as they were when this
 * process suspended the machine: the boot CPU comes back in this process's
 * mm, with its LAM bits in CR3 (or EFER.UAI set), and fix_processor_context()
 * calls initialize_tlbstate_and_flush() on it (kernel/series/1-lam-resume-fix).
 *
 * fixed (the series): the kernel logs no WARN from the suspend to the
 * resume, and the first tagged dereference after resume, before any other
 * system call, reads and writes the memory (on UAI that needs EFER.UAI;
 * the same mm switches as below rewrite it from the kernel's cache before
 * the write returns, so this checks the outcome rather than the resume
 * code alone). With lass (--cpu lam): on every CPU a load from the kernel
 * half is a #GP before and after resume, so CR4.LASS came back on the boot
 * CPU and on the ones brought back up; and it still is after the kernel
 * has rewritten CR4 from its shadow copy on each CPU (PR_SET_TSC sets and
 * clears CR4.TSD with cr4_set_bits()/cr4_clear_bits()), so the shadow
 * came back with LASS too. A resume whose shadow lacks LASS while CR4 has
 * it (tboot's S3 path lifts LASS through the shadow on the way down)
 * passes the first check and fails the second: the load is a #PF.
 *
 * warn (upstream 6.12 on --cpu lam): the function's two WARN_ON()s about
 * LAM fire, in this process, with CR3 holding LAM_U57; the function then
 * writes CR3 without the LAM bits, while the per-CPU state keeps LAM_U57.
 * The process meets that CR3 in user space unless switch_mm_irqs_off()
 * loads CR3 from its mm first, as it does when the process, having slept
 * in the resume path, is switched back in and finds ASID 0's recorded TLB
 * generation (init_mm's, which initialize_tlbstate_and_flush() wrote)
 * older than its mm's, or when text_poke() borrows a temporary mm in its
 * context and switches back (thaw_processes() turns a static key off);
 * each time it logs a tlb_flush event "flush on task switch". The
 * sched_switch and tlb_flush events from "Low-level resume complete" on
 * say whether that happened, and the first dereference must agree: read
 * and written if it did, a #GP if not.
 *
 * Either way a dereference after a context switch to a child and back
 * works. The rig's root is 9p over virtio, whose Linux transport has no
 * resume callback: after resume no request to it completes, and a process
 * holding a file of it cannot even exit. So the program (linked static)
 * copies itself to /tmp (tmpfs), runs from there, and opens what it needs
 * (the kernel log, sysfs and tracefs) before the machine sleeps. The RTC
 * alarm wakes the machine, SeaBIOS jumps to the kernel's wakeup vector.
 * Prints TAP; exits 1 on any failure.
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
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"

#define RUN_COPY	"/tmp/s3_tagged"
#define KERNEL_ADDR	0xffffffff81000000UL	/* kernel text, mapped */
#define CR3_LAM_U57	(1UL << 61)
#define CR3_LAM_U48	(1UL << 62)
/*
 * The RTC alarm, in seconds: the machine must be in S3 before it fires, or
 * nothing wakes it. Entering S3 takes about a second under TCG on a busy
 * host.
 */
#define WAKE_AFTER	"+5"
#define MAX_WARNS	8
#define TRACING		"/sys/kernel/tracing/"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct {
	int code, trap;
	void *addr;
} fault;
static sigjmp_buf jmp;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	fault.code = si->si_code;
	fault.addr = si->si_addr;
	fault.trap = uc->uc_mcontext.gregs[REG_TRAPNO];
	siglongjmp(jmp, 1);
}

/*
 * Read *tagged and write it back plus one: 0 when both worked and the
 * untagged pointer sees the store, 1 on a fault (in fault), 2 if the store
 * is not visible. The jump buffer does not save the signal mask, so that
 * no system call comes before the access (SA_NODEFER keeps SIGSEGV open).
 */
static int deref(volatile uint64_t *tagged, volatile uint64_t *plain)
{
	uint64_t v;

	memset(&fault, 0, sizeof(fault));
	if (sigsetjmp(jmp, 0))
		return 1;
	v = *tagged;
	*tagged = v + 1;
	return *plain == v + 1 ? 0 : 2;
}

/* What deref() saw, in words. */
static const char *how(int r)
{
	static char buf[96];

	if (r == 0)
		return "read and written";
	if (r == 2)
		return "the store is not seen through the untagged pointer";
	snprintf(buf, sizeof(buf), "SIGSEGV, trap %d (%s), si_code %d",
		 fault.trap, fault.trap == 13 ? "#GP" : fault.trap == 14 ? "#PF" : "?",
		 fault.code);
	return buf;
}

/* A user load from the kernel half: the trap it raised, 0 if none. */
static int kernel_load_trap(void)
{
	memset(&fault, 0, sizeof(fault));
	if (sigsetjmp(jmp, 0))
		return fault.trap;
	(void)*(volatile long *)KERNEL_ADDR;
	return 0;
}

/*
 * On each CPU in turn, a load from the kernel half is LASS's #GP. With
 * @cr4_write, the kernel first writes CR4 from its shadow on that CPU
 * (CR4.TSD on and off again through PR_SET_TSC): a shadow without LASS
 * would have cleared it.
 */
static void lass_each_cpu(const char *when, int cr4_write)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int cpu, trap;

	for (cpu = 0; cpu < cpus; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) ||
		    (cr4_write &&
		     (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) ||
		      prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0))))
			trap = -1;
		else
			trap = kernel_load_trap();
		check(trap == 13,
		      "%s, on CPU %d%s: a load from the kernel half is a #GP (LASS; trap %d)",
		      when, cpu,
		      cr4_write ? ", after CR4.TSD set and cleared from the shadow" : "",
		      trap);
	}
	CPU_ZERO(&set);
	for (cpu = 0; cpu < cpus; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int write_str(int fd, const char *s)
{
	ssize_t n = write(fd, s, strlen(s));

	return n == (ssize_t)strlen(s) ? 0 : n < 0 ? errno : EIO;
}

/* Write S into the file at PATH: 0 or an errno. */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), err;

	if (fd < 0)
		return errno;
	err = write_str(fd, s);
	close(fd);
	return err;
}

static long read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC: the time spent suspended, in ms. */
static long slept_ms(void)
{
	struct timespec b, m;

	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (b.tv_sec - m.tv_sec) * 1000 + (b.tv_nsec - m.tv_nsec) / 1000000;
}

/*
 * Run from a copy on /tmp (the guest's tmpfs) with /tmp as the working
 * directory, unless this program already is there: returns only then.
 */
static void leave_9p(char **argv)
{
	struct stat exe, tmp;
	int in, out;

	if (stat("/proc/self/exe", &exe) == 0 && stat("/tmp", &tmp) == 0 &&
	    exe.st_dev == tmp.st_dev && chdir("/tmp") == 0)
		return;
	in = open("/proc/self/exe", O_RDONLY);
	out = open(RUN_COPY, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0 || fstat(in, &exe) ||
	    sendfile(out, in, NULL, exe.st_size) != exe.st_size || close(out) ||
	    chdir("/tmp")) {
		printf("Bail out! cannot copy this program to %s: %s\n",
		       RUN_COPY, strerror(errno));
		exit(1);
	}
	close(in);
	execv(RUN_COPY, argv);
	printf("Bail out! cannot run %s: %s\n", RUN_COPY, strerror(errno));
	exit(1);
}

/* The kernel log from the mark on. */
static struct {
	int warns, splats, resumed, exited;
	struct {
		int pid, line, have_cr3;
		char where[128];
		unsigned long cr3;
	} warn[MAX_WARNS];
} klog;

static void read_klog(int fd)
{
	static char rec[8192];
	ssize_t n;

	for (;;) {
		char *msg, *nl, *p, where[128];
		unsigned long cr3;
		int pid, line;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: read on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		printf("# kmsg: %s\n", msg);

		if (strstr(msg, "cut here") || !strncmp(msg, "BUG:", 4) ||
		    strstr(msg, "Oops") || strstr(msg, "general protection fault"))
			klog.splats++;
		if (!strcmp(msg, "ACPI: PM: Low-level resume complete"))
			klog.resumed++;
		if (!strcmp(msg, "PM: suspend exit"))
			klog.exited++;
		if (sscanf(msg, "WARNING: CPU: %*d PID: %d at arch/x86/mm/tlb.c:%d %127s",
			   &pid, &line, where) == 3 && klog.warns < MAX_WARNS) {
			p = strchr(where, '+');
			if (p)
				*p = '\0';
			klog.warn[klog.warns].pid = pid;
			klog.warn[klog.warns].line = line;
			snprintf(klog.warn[klog.warns].where,
				 sizeof(klog.warn[0].where), "%s", where);
			klog.warns++;
		} else if (!strncmp(msg, "WARNING:", 8)) {
			klog.splats++;
		}
		p = strstr(msg, "CR3: ");
		if (p && sscanf(p, "CR3: %lx", &cr3) == 1 && klog.warns &&
		    !klog.warn[klog.warns - 1].have_cr3) {
			klog.warn[klog.warns - 1].cr3 = cr3;
			klog.warn[klog.warns - 1].have_cr3 = 1;
		}
	}
}

static const char *const events[] = {
	"sched/sched_switch", "tlb/tlb_flush", "printk/console",
};

/* Trace context switches, TLB flushes and printk from now on: 0 or errno. */
static int trace_start(void)
{
	char path[128];
	unsigned int i;
	int err;

	err = put(TRACING "tracing_on", "0");
	if (!err)
		err = put(TRACING "trace", "");
	for (i = 0; !err && i < ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), TRACING "events/%s/enable", events[i]);
		err = put(path, "1");
	}
	return err ? err : put(TRACING "tracing_on", "1");
}

/*
 * From "Low-level resume complete" (after initialize_tlbstate_and_flush())
 * to the end of the trace: how often this process was switched back in,
 * and how often switch_mm_irqs_off() loaded CR3 from its mm (the tlb_flush
 * event it logs right after a CR3 write, reason 0): in the switch into the
 * process, or in the process's own context, where the kernel borrows a
 * temporary mm (text_poke()) and switches back. -1 in lost when the trace
 * is not whole.
 */
static struct {
	int marked, switched_in, reloaded, lost, lines;
} sw;

static void read_trace(void)
{
	char line[1024], in[32], self[32], *p, *task;
	int pending[64] = { 0 }, cpu;
	FILE *f = fopen(TRACING "trace", "r");

	if (!f) {
		sw.lost = -1;
		return;
	}
	snprintf(in, sizeof(in), "next_pid=%d ", getpid());
	snprintf(self, sizeof(self), "-%d ", getpid());
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		sw.lines++;
		if (strstr(line, "LOST") && strstr(line, "EVENTS"))
			sw.lost = -1;
		if (strstr(line, " console: ") &&
		    strstr(line, "ACPI: PM: Low-level resume complete")) {
			sw.marked = 1;
			continue;
		}
		/* "comm-pid [CPU] flags timestamp: event: ..." */
		p = strstr(line, " [");
		if (!sw.marked || !p || sscanf(p, " [%d]", &cpu) != 1 ||
		    cpu < 0 || cpu >= 64)
			continue;
		/*
		 * Right after a switch into this process, or in its own
		 * context: a temporary mm (text_poke()) and back to its own.
		 */
		task = strstr(line, self);
		if ((pending[cpu] || (task && task < p)) && strstr(line, " tlb_flush: ") &&
		    strstr(line, "reason:flush on task switch")) {
			if (!sw.reloaded++)
				printf("# trace: %s", line);
		}
		pending[cpu] = 0;
		if (strstr(line, " sched_switch: ") && strstr(line, in)) {
			if (!sw.reloaded)
				printf("# trace: %s", line);
			sw.switched_in++;
			pending[cpu] = 1;
		}
	}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: s3_tagged lam|uai fixed|warn [lass]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO | SA_NODEFER };
	volatile uint64_t *plain, *tagged;
	int kmsg, state, alarm_fd, r, first, fixed, lass, i, err;
	long before_ok, after_ok, slept0, slept;
	unsigned long mask = 0;
	pid_t pid;

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "lam") && strcmp(argv[1], "uai")))
		usage();
	if (strcmp(argv[2], "fixed") && strcmp(argv[2], "warn"))
		usage();
	if (argc == 4 && strcmp(argv[3], "lass"))
		usage();
	fixed = !strcmp(argv[2], "fixed");
	lass = argc == 4;
	leave_9p(argv);
	sigaction(SIGSEGV, &sa, NULL);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	state = open("/sys/power/state", O_WRONLY);
	alarm_fd = open("/sys/class/rtc/rtc0/wakealarm", O_WRONLY);
	check(kmsg >= 0 && state >= 0 && alarm_fd >= 0,
	      "/dev/kmsg, /sys/power/state and rtc0's wakealarm open");
	plain = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (kmsg < 0 || state < 0 || alarm_fd < 0 || plain == MAP_FAILED)
		return tap_end();
	lseek(kmsg, 0, SEEK_END);
	*plain = 41;
	tagged = tag_ptr((const void *)plain, 0x2a);

	r = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS);
	arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask);
	check(r == 0 && mask == ~TAG_MASK,
	      "%s: tagging enabled, untag mask %#lx", argv[1], mask);
	r = deref(tagged, plain);
	check(r == 0, "before suspend: a pointer tagged 0x2a is %s", how(r));
	if (lass)
		lass_each_cpu("before suspend", 0);

	before_ok = read_long("/sys/power/suspend_stats/success");
	slept0 = slept_ms();
	err = write_str(alarm_fd, "0");
	if (!err)
		err = write_str(alarm_fd, WAKE_AFTER);
	check(!err, "RTC alarm set to %s s (%s)", WAKE_AFTER, strerror(err));
	r = trace_start();
	check(!r, "tracing sched_switch, tlb_flush and console (%s)", strerror(r));
	fflush(stdout);

	/* This process suspends the machine; it is current on resume. */
	err = write_str(state, "mem");
	first = deref(tagged, plain);
	put(TRACING "tracing_on", "0");

	slept = slept_ms() - slept0;
	after_ok = read_long("/sys/power/suspend_stats/success");
	read_klog(kmsg);
	read_trace();
	check(!err && after_ok == before_ok + 1 && klog.resumed == 1 && klog.exited == 1,
	      "the machine went to S3 and resumed (write: %s; suspend_stats/success %ld -> %ld; \"Low-level resume complete\" %d, \"suspend exit\" %d)",
	      strerror(err), before_ok, after_ok, klog.resumed, klog.exited);
	check(slept >= 1000, "it slept %ld ms (CLOCK_BOOTTIME gained on CLOCK_MONOTONIC)",
	      slept);
	check(sw.marked && sw.lost == 0,
	      "the trace holds the resume whole (%d lines%s)", sw.lines,
	      sw.lost ? ", events lost" : sw.marked ? "" : ", no resume in it");
	printf("# from resume to the write's return: %d switches in, %d CR3 loads from the mm\n",
	       sw.switched_in, sw.reloaded);

	if (fixed) {
		check(first == 0,
		      "the first dereference after resume, before any system call: %s", how(first));
		check(klog.warns == 0 && klog.splats == 0,
		      "no WARN or other splat in the kernel log from suspend to resume (%d WARNs in tlb.c, %d other)",
		      klog.warns, klog.splats);
	} else {
		check(klog.warns == 2 && klog.splats == 2,
		      "two WARNs in the kernel log, from arch/x86/mm/tlb.c (%d from tlb.c, %d splat lines)",
		      klog.warns, klog.splats);
		for (i = 0; i < klog.warns && i < 2; i++)
			check(klog.warn[i].pid == getpid() &&
			      !strcmp(klog.warn[i].where, "initialize_tlbstate_and_flush") &&
			      klog.warn[i].have_cr3 &&
			      (klog.warn[i].cr3 & (CR3_LAM_U57 | CR3_LAM_U48)) == CR3_LAM_U57,
			      "WARN %d: in %s (tlb.c:%d), PID %d (this one is %d), CR3 %#lx with LAM_U57",
			      i + 1, klog.warn[i].where, klog.warn[i].line, klog.warn[i].pid,
			      getpid(), klog.warn[i].cr3);
		if (klog.warns == 2)
			check(klog.warn[1].line == klog.warn[0].line + 1,
			      "from two consecutive lines (%d, %d): the CR3 bits and the mm's LAM mode",
			      klog.warn[0].line, klog.warn[1].line);
		if (sw.reloaded)
			check(first == 0,
			      "CR3 was reloaded from the mm before the write returned, so the first dereference after resume is %s",
			      how(first));
		else
			check(first == 1 && fault.trap == 13,
			      "CR3 was left without LAM, so the first dereference after resume is a #GP (%s)",
			      how(first));
	}

	mask = 0;
	arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask);
	check(mask == ~TAG_MASK, "after resume: untag mask %#lx", mask);

	/* A context switch to another mm and back loads CR3 from the mm. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	r = deref(tagged, plain);
	check(r == 0, "after a context switch to a child and back, the tagged pointer is %s",
	      how(r));
	if (lass) {
		lass_each_cpu("after resume", 0);
		lass_each_cpu("after resume", 1);
	}
	return tap_end();
}
