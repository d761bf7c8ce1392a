// SPDX-License-Identifier: GPL-2.0
/*
 * far32: far transfers of a 32-bit (compatibility-mode) process to its own
 * code segment, the stack accesses that the emulator makes in helpers
 * rather than in translated code.
 *
 *   far32
 *
 * Each case runs in a child of its own:
 *   1. LRETL: far return, 32-bit operands (EIP, CS).
 *   2. IRETL: return from interrupt to the same privilege, 32-bit operands
 *      (EIP, CS, EFLAGS); the popped EFLAGS has DF set, and DF must be set
 *      afterwards.
 *   3. LCALL m16:32: far call through a pointer in memory; the callee finds
 *      the return EIP and CS on the stack and returns with LRETL.
 *   4.-6. The same with 16-bit operands (LRETW, IRETW, LCALLW m16:16), whose
 *      target offset is 16 bits wide: a two-byte stub at 0x1000 jumps back
 *      (vm.mmap_min_addr is lowered to map it).
 *   7. IRETL whose popped EFLAGS has VM (bit 17) set. SDM vol. 2, IRET:
 *      only a protected-mode IRET at CPL 0 returns to virtual-8086 mode,
 *      and never one in IA-32e mode; here (CPL 3, compatibility mode) it
 *      is an ordinary return to the same privilege, VM stays clear.
 *
 * SDM vol. 3, "Supervisor-Mode Access Prevention": accesses made at CPL 3
 * are user-mode accesses, except the implicit ones (GDT, LDT, IDT, TSS), so
 * these stack accesses are user-mode accesses and succeed on a user stack
 * whether CR4.SMAP is set or not, and under LASS (a user access to an
 * address with bit 63 clear). An emulator that makes them as supervisor
 * accesses faults with a #PF without the U/S bit (the guest kernel oopses)
 * or, under LASS, with a #GP (SIGSEGV).
 *
 * Freestanding (no libc): gcc -m32 -ffreestanding -nostdlib -static.
 * Prints TAP ("ok N - ..."), exits 1 on any failure.
 */

#define NR_exit		1
#define NR_fork		2
#define NR_write	4
#define NR_open		5
#define NR_close	6
#define NR_waitpid	7
#define NR_mmap		90

#define O_WRONLY	1
#define PROT_RWX	7
#define MAP_FIXED_ANON	0x32	/* MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS */

#define EFLAGS_DF	0x400
#define EFLAGS_VM	0x20000
#define STUB		0x1000UL	/* the 16-bit operand target */

static long sys3(long nr, long a, long b, long c)
{
	long r;

	asm volatile("int $0x80"
		     : "=a"(r)
		     : "a"(nr), "b"(a), "c"(b), "d"(c)
		     : "memory");
	return r;
}

static unsigned long slen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void put(const char *s)
{
	sys3(NR_write, 1, (long)s, slen(s));
}

static void put_num(unsigned long v)
{
	char buf[12];
	int i = sizeof(buf) - 1;

	buf[i] = 0;
	do {
		buf[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	put(buf + i);
}

static __attribute__((noreturn)) void do_exit(int code)
{
	for (;;)
		sys3(NR_exit, code, 0, 0);
}

static unsigned int cur_cs(void)
{
	unsigned int cs;

	asm volatile("movl %%cs, %0" : "=r"(cs));
	return cs & 0xffff;
}

/*
 * The far-call target: returns the CS and EIP the call pushed in EDX and
 * ECX, and returns with LRETL.
 */
asm(".text\n"
    "far_callee:\n"
    "	movl (%esp), %ecx\n"
    "	movl 4(%esp), %edx\n"
    "	lretl\n");

/* Each case returns 0 when the transfer did what the SDM says. */
static int case_lretl(void)
{
	unsigned long before, after;

	asm volatile("movl %%esp, %0\n\t"
		     "pushl %%cs\n\t"
		     "pushl $1f\n\t"
		     "lretl\n"
		     "1:\n\t"
		     "movl %%esp, %1"
		     : "=&r"(before), "=r"(after) : : "memory");
	return before != after;
}

static int case_iretl(void)
{
	unsigned long before, after, flags;

	asm volatile("movl %%esp, %0\n\t"
		     "pushfl\n\t"
		     "orl %3, (%%esp)\n\t"
		     "pushl %%cs\n\t"
		     "pushl $1f\n\t"
		     "iretl\n"
		     "1:\n\t"
		     "movl %%esp, %1\n\t"
		     "pushfl\n\t"
		     "popl %2\n\t"
		     "cld"
		     : "=&r"(before), "=&r"(after), "=r"(flags)
		     : "i"(EFLAGS_DF) : "memory", "cc");
	return before != after || !(flags & EFLAGS_DF);
}

static int case_iretl_vm(void)
{
	unsigned long before, after;

	asm volatile("movl %%esp, %0\n\t"
		     "pushfl\n\t"
		     "orl %2, (%%esp)\n\t"
		     "pushl %%cs\n\t"
		     "pushl $1f\n\t"
		     "iretl\n"
		     "1:\n\t"
		     "movl %%esp, %1"
		     : "=&r"(before), "=r"(after)
		     : "i"(EFLAGS_VM) : "memory", "cc");
	return before != after;
}

static int case_lcalll(void)
{
	struct __attribute__((packed)) {
		unsigned int off;
		unsigned short sel;
	} target;
	unsigned long ret_eip, ret_cs, want_eip;
	extern char far_callee[];

	target.off = (unsigned long)far_callee;
	target.sel = cur_cs();
	asm volatile("lcall *%3\n"
		     "1:\n\t"
		     "movl $1b, %2"
		     : "=c"(ret_eip), "=d"(ret_cs), "=r"(want_eip)
		     : "m"(target) : "memory");
	return ret_eip != want_eip || (ret_cs & 0xffff) != cur_cs();
}

/* Map the stub "jmp *%eax" at STUB, for the 16-bit operand cases. */
static int map_stub(void)
{
	static const char min_addr[] = "4096\n";
	unsigned long args[6] = { STUB, 4096, PROT_RWX, MAP_FIXED_ANON, -1, 0 };
	long fd, r;

	fd = sys3(NR_open, (long)"/proc/sys/vm/mmap_min_addr", O_WRONLY, 0);
	if (fd < 0)
		return -1;
	r = sys3(NR_write, fd, (long)min_addr, sizeof(min_addr) - 1);
	sys3(NR_close, fd, 0, 0);
	if (r != sizeof(min_addr) - 1)
		return -1;
	r = sys3(NR_mmap, (long)args, 0, 0);
	if (r != (long)STUB)
		return -1;
	((volatile unsigned char *)STUB)[0] = 0xff;	/* jmp *%eax */
	((volatile unsigned char *)STUB)[1] = 0xe0;
	return 0;
}

static int case_lretw(void)
{
	unsigned long before, after;

	if (map_stub())
		return 2;
	asm volatile("movl %%esp, %0\n\t"
		     "movl $1f, %%eax\n\t"
		     "pushw %%cs\n\t"
		     "pushw %2\n\t"
		     "lretw\n"
		     "1:\n\t"
		     "movl %%esp, %1"
		     : "=&r"(before), "=r"(after)
		     : "i"(STUB) : "eax", "memory");
	return before != after;
}

static int case_iretw(void)
{
	unsigned long before, after, flags;

	if (map_stub())
		return 2;
	asm volatile("movl %%esp, %0\n\t"
		     "movl $1f, %%eax\n\t"
		     "pushfw\n\t"
		     "orw %3, (%%esp)\n\t"
		     "pushw %%cs\n\t"
		     "pushw %4\n\t"
		     "iretw\n"
		     "1:\n\t"
		     "movl %%esp, %1\n\t"
		     "pushfl\n\t"
		     "popl %2\n\t"
		     "cld"
		     : "=&r"(before), "=&r"(after), "=r"(flags)
		     : "i"(EFLAGS_DF), "i"(STUB) : "eax", "memory", "cc");
	return before != after || !(flags & EFLAGS_DF);
}

static int case_lcallw(void)
{
	struct __attribute__((packed)) {
		unsigned short off;
		unsigned short sel;
	} target;
	unsigned long ret_ip, ret_cs, want_eip;

	if (map_stub())
		return 2;
	target.off = STUB;
	target.sel = cur_cs();
	/* The stub jumps back; the pushed IP and CS are still on the stack. */
	asm volatile("movl $1f, %%eax\n\t"
		     "lcallw *%3\n"
		     "1:\n\t"
		     "movzwl (%%esp), %0\n\t"
		     "movzwl 2(%%esp), %1\n\t"
		     "addl $4, %%esp\n\t"
		     "movl $1b, %2"
		     : "=&r"(ret_ip), "=&r"(ret_cs), "=r"(want_eip)
		     : "m"(target) : "eax", "memory");
	return ret_ip != (want_eip & 0xffff) || ret_cs != cur_cs();
}

static const struct {
	int (*fn)(void);
	const char *name;
} cases[] = {
	{ case_lretl, "LRETL (far return, 32-bit operands) to own CS" },
	{ case_iretl, "IRETL (32-bit operands) to own CS, EFLAGS.DF restored" },
	{ case_lcalll, "LCALL m16:32 (far call) to own CS, frame as pushed" },
	{ case_lretw, "LRETW (far return, 16-bit operands) to own CS" },
	{ case_iretw, "IRETW (16-bit operands) to own CS, FLAGS.DF restored" },
	{ case_lcallw, "LCALLW m16:16 (far call, 16-bit operands) to own CS" },
	{ case_iretl_vm, "IRETL at CPL 3 with EFLAGS.VM set: no virtual-8086 mode" },
};

void _start(void)
{
	unsigned int i, failed = 0;

	put("# far32: CS=");
	put_num(cur_cs());
	put("\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long pid = sys3(NR_fork, 0, 0, 0);
		int status = 0;

		if (pid == 0)
			do_exit(cases[i].fn());
		if (pid < 0 || sys3(NR_waitpid, pid, (long)&status, 0) != pid)
			status = 0x7f00;	/* reported as exit status 127 */
		if (status) {
			failed = 1;
			put("not ");
		}
		put("ok ");
		put_num(i + 1);
		put(" - ");
		put(cases[i].name);
		put("\n");
		if ((status & 0x7f) != 0) {
			put("#   killed by signal ");
			put_num(status & 0x7f);
			put("\n");
		} else if (status) {
			put("#   exit status ");
			put_num((status >> 8) & 0xff);
			put(status == 0x200 ? " (no stub at 0x1000)\n" :
			    " (wrong result)\n");
		}
	}
	put("1..");
	put_num(i);
	put("\n");
	do_exit(failed);
}
