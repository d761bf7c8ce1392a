// SPDX-License-Identifier: GPL-2.0
/*
 * emul-paths: the address paths of the emulated LAM and UAI that plain
 * loads and stores do not reach. Run in the guest with the CPU model the
 * rig booted:
 *
 *   emul-paths lam|uai
 *
 * Tagging is enabled with arch_prctl(ARCH_ENABLE_TAGGED_ADDR), which sets
 * CR3.LAM_U57 on LAM and EFER.UAIE on UAI (kernel/series/). Then:
 *
 * 1. A tagged RSP (tag in bits 62:57) through PUSH/POP, near CALL/RET,
 *    PUSHF/POPF, far CALL (m16:64, and m16:32), far RET (LRETQ, and LRET
 *    with 32-bit operands) and IRET (IRETQ, and IRETL). With 32-bit
 *    operands the stack address is still 64 bits wide and RSP keeps all
 *    64 bits (SDM vol. 1, 6.14.1); IRETL does not enter virtual-8086 mode
 *    when the EFLAGS it pops has VM set (SDM vol. 2, IRET).
 *    SDM, "Linear Address Masking": LAM applies to every data access in
 *    64-bit mode, stack accesses included; RSP itself keeps its tag. So on
 *    LAM each works, the stack contents are seen through the untagged
 *    address and RSP still holds the tag afterwards.
 *    APM vol. 2, "Upper Address Ignore": only references through DS and ES
 *    ignore bits 63:57; stack (SS) references keep the canonical check, and
 *    a non-canonical stack reference raises #SS(0), which Linux delivers as
 *    SIGBUS. So on UAI each of them is killed by SIGBUS.
 * 2. AVX2 gathers (VPGATHERQQ, VPGATHERQD, VPGATHERDQ, VPGATHERDD) whose
 *    element addresses are tagged through the 64-bit indices or the base.
 *    SDM: LAM masks each element's linear address, with the width chosen by
 *    that address's own bit 63. APM: UAI applies to the DS (default)
 *    segment, so a gather through DS works; through FS it keeps the check
 *    (#GP, SIGSEGV) and with base RBP (segment SS) it raises #SS (SIGBUS).
 * 3. Data breakpoints.
 *    SDM, "Linear Address Masking": the debug-register comparison uses the
 *    linear address after LAM masking. APM, "Upper Address Ignore": with
 *    UAI, data breakpoints compare bits 56:0 of the address only.
 *    a) DR0 at the untagged address of a variable (set with
 *       ptrace(PTRACE_POKEUSER) on u_debugreg from the parent), accessed
 *       through tagged pointers, a gather element and, on LAM, a PUSH:
 *       each hits on both CPUs (the neighbouring quadword does not). On UAI
 *       an access with bits 63:57 set (bit 63 included) hits too.
 *    b) DR0 holding a tagged address. Linux refuses that through ptrace
 *       (it is not a user address), so this one uses a perf breakpoint
 *       event, which root may place anywhere. On LAM it never hits: the
 *       masked address of an access has no tag, whatever tag the pointer
 *       had. On UAI every access to the variable hits, whatever its bits
 *       63:57. A second breakpoint at the untagged address counts the same
 *       accesses on both, so that a count of zero means something.
 * 4. CS, DS, ES and SS segment-override prefixes, which 64-bit mode
 *    ignores (SDM vol. 1, 3.3.7.1; APM: null prefixes): the reference keeps
 *    its default segment. On UAI a tagged ss:(%rdi) or cs:(%rdi) load
 *    works (DS), a tagged ds:(%rbp) or ds:(%rsp) load raises #SS (SIGBUS),
 *    and the same for gathers; on LAM all of them work.
 *
 * Prints TAP ("ok N - ..."), exits 1 on any failure.
 */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"

#define TAG	0x2aUL

static int lam, uai;

static const char *what(int r)
{
	static char buf[64];

	if (r == 0)
		return "worked";
	if (r < 1000)
		snprintf(buf, sizeof(buf), "killed by %s", strsignal(r));
	else
		snprintf(buf, sizeof(buf), "wrong result (%d)", r - 1000);
	return buf;
}

/*
 * Run fn in a child: 0 when it returned 0, the signal that killed it, or
 * 1000 + the nonzero value it returned.
 */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1999;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WEXITSTATUS(status) ? 1000 + WEXITSTATUS(status) : 0;
}

/* On LAM the access works; on UAI it works or is killed by uai_sig. */
static void expect(int r, int uai_sig, const char *name)
{
	if (lam || !uai_sig)
		check(r == 0, "%s: %s works (%s)", lam ? "LAM" : "UAI", name, what(r));
	else
		check(r == uai_sig, "UAI: %s is killed by %s (%s)", name,
		      strsignal(uai_sig), what(r));
}

/*
 * A load and a store through a tagged pointer, in RDI. The compiler could
 * put it in RBP, and a reference based on RBP goes through SS, where UAI
 * does not ignore the tag (#SS). The gathers below take their base in RSI
 * for the same reason.
 */
static uint64_t ds_load(uint64_t addr)
{
	uint64_t v;

	asm volatile("mov (%1), %0" : "=r"(v) : "D"(addr) : "memory");
	return v;
}

static void ds_store(uint64_t addr, uint64_t v)
{
	asm volatile("mov %1, (%0)" : : "D"(addr), "r"(v) : "memory");
}

/* ---- 1. a tagged RSP ---- */

#define STK_WORDS 64
static uint64_t stk[STK_WORDS] __attribute__((aligned(64)));

static uint64_t tagged_top(void)
{
	return (uint64_t)tag_ptr(&stk[STK_WORDS], TAG);
}

static uint64_t user_cs(void)
{
	uint64_t cs;

	asm volatile("mov %%cs, %k0" : "=r"(cs));
	return cs;
}

static uint64_t user_ss(void)
{
	uint64_t ss;

	asm volatile("mov %%ss, %k0" : "=r"(ss));
	return ss;
}

/* PUSH then POP on a tagged RSP; the slot is read back untagged. */
static int stack_push(void)
{
	uint64_t top = tagged_top(), sp, out;

	asm volatile("mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     "push %[val]\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "pop %[out]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp), [out] "=&r"(out)
		     : [top] "r"(top), [val] "r"(0x1234abcdUL)
		     : "r12", "memory");
	if (stk[STK_WORDS - 1] != 0x1234abcd)
		return 1;
	if (sp != top - 8 || out != 0x1234abcd)
		return 2;
	return 0;
}

/* Near CALL and RET on a tagged RSP. */
static int stack_call(void)
{
	uint64_t top = tagged_top(), sp_in, ret, want;

	asm volatile("mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     "lea 2f(%%rip), %[want]\n\t"
		     "call 1f\n"
		     "2:\n\t"
		     "jmp 3f\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp_in]\n\t"
		     "mov (%%rsp), %[ret]\n\t"
		     "ret\n"
		     "3:\n\t"
		     "mov %%r12, %%rsp"
		     : [sp_in] "=&r"(sp_in), [ret] "=&r"(ret), [want] "=&r"(want)
		     : [top] "r"(top)
		     : "r12", "memory");
	if (stk[STK_WORDS - 1] != want || ret != want)
		return 1;
	if (sp_in != top - 8)
		return 2;
	return 0;
}

/* PUSHF and POPF on a tagged RSP. */
static int stack_pushf(void)
{
	uint64_t top = tagged_top(), sp;

	asm volatile("mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     "pushfq\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "popfq\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp)
		     : [top] "r"(top)
		     : "r12", "memory", "cc");
	/* Bit 1 is always set, IF is set in user mode. */
	if ((stk[STK_WORDS - 1] & 0x202) != 0x202)
		return 1;
	if (sp != top - 8)
		return 2;
	return 0;
}

/*
 * Far RET (LRETQ) from a frame written through the untagged address, so
 * that only the pops made by the far return use the tagged RSP.
 */
static int stack_lret(void)
{
	uint64_t top = tagged_top(), sp;

	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, %c[w0]+%[stk]\n\t"
		     "mov %[cs], %c[w1]+%[stk]\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "lea -16(%[top]), %%rsp\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp), [stk] "+m"(stk)
		     : [top] "r"(top), [cs] "r"(user_cs()),
		       [w0] "i"((STK_WORDS - 2) * 8), [w1] "i"((STK_WORDS - 1) * 8)
		     : "rax", "r12", "memory");
	return sp != top;
}

/* IRETQ (same privilege) from a frame written through the untagged address. */
static int stack_iret(void)
{
	uint64_t top = tagged_top(), sp;
	uint64_t flags = __builtin_ia32_readeflags_u64();

	/* The frame: RIP, CS, RFLAGS, RSP (the tagged top), SS. */
	stk[STK_WORDS - 4] = user_cs();
	stk[STK_WORDS - 3] = flags;
	stk[STK_WORDS - 2] = top;
	stk[STK_WORDS - 1] = user_ss();
	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, %c[w0]+%[stk]\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "lea -40(%[top]), %%rsp\n\t"
		     "iretq\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp), [stk] "+m"(stk)
		     : [top] "r"(top), [w0] "i"((STK_WORDS - 5) * 8)
		     : "rax", "r12", "memory", "cc");
	return sp != top;
}

/* Far CALL through an m16:64 pointer (REX.W FF /3), then far RET. */
static int stack_lcall(void)
{
	struct __attribute__((packed)) {
		uint64_t off;
		uint16_t sel;
	} fp;
	uint64_t top = tagged_top(), sp_in, sp_out, want;

	fp.sel = user_cs();
	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, (%%rdx)\n\t"
		     "lea 2f(%%rip), %[want]\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     ".byte 0x48, 0xff, 0x1a\n"	/* lcall *(%rdx), m16:64 */
		     "2:\n\t"
		     "jmp 3f\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp_in]\n\t"
		     "lretq\n"
		     "3:\n\t"
		     "mov %%rsp, %[sp_out]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp_in] "=&r"(sp_in), [sp_out] "=&r"(sp_out),
		       [want] "=&r"(want)
		     : [top] "r"(top), "d"(&fp)
		     : "rax", "r12", "memory");
	if (stk[STK_WORDS - 2] != want || stk[STK_WORDS - 1] != fp.sel)
		return 1;
	if (sp_in != top - 16 || sp_out != top)
		return 2;
	return 0;
}

/*
 * Far RET without REX.W (LRETL): a 32-bit EIP and CS. In 64-bit mode the
 * stack address size is 64 bits whatever the operand size (SDM vol.1
 * 6.2.3 "Pointer Sizes" / "Stack Behavior in 64-Bit Mode"), so the pops
 * use the whole tagged RSP and RSP keeps all 64 bits. The 32-bit return
 * address is a stub mapped below 4 GiB that jumps back through R13.
 */
#define LOW_STUB 0x200000UL
static const unsigned char jmp_r13[] = { 0x41, 0xff, 0xe5 };

/* Map a page at LOW_STUB holding @len bytes of @code; NULL if it can't. */
static unsigned char *low_stub(const unsigned char *code, size_t len)
{
	void *p = mmap((void *)LOW_STUB, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)LOW_STUB)
		return NULL;
	return memcpy(p, code, len);
}

static int stack_lretl(void)
{
	uint64_t top = tagged_top(), sp;

	if (!low_stub(jmp_r13, sizeof(jmp_r13)))
		return 3;
	stk[STK_WORDS - 1] = user_cs() << 32 | LOW_STUB;
	asm volatile("lea 1f(%%rip), %%r13\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "lea -8(%[top]), %%rsp\n\t"
		     "lretl\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp), [stk] "+m"(stk)
		     : [top] "r"(top)
		     : "r12", "r13", "memory");
	return sp != top;
}

/*
 * Far CALL through an m16:32 pointer (FF /3 without REX.W), then LRETL.
 * The return address pushed is 32 bits, so both the call and the callee
 * are in the stub below 4 GiB; the callee saves RSP in R14.
 */
static int stack_lcalll(void)
{
	static const unsigned char code[] = {
		0xff, 0x1d, 0x1a, 0x00, 0x00, 0x00,	/* 0x00: lcall *0x20(%rip) */
		0x41, 0xff, 0xe5,			/* 0x06: jmp *%r13 */
		[0x10] = 0x49, 0x89, 0xe6,		/* 0x10: mov %rsp, %r14 */
		0xcb,					/* 0x13: lretl */
	};
	uint64_t top = tagged_top(), sp_in, sp_out, frame;
	unsigned char *p;

	p = low_stub(code, sizeof(code));
	if (!p)
		return 3;
	*(uint32_t *)(p + 0x20) = LOW_STUB + 0x10;	/* m16:32 */
	*(uint16_t *)(p + 0x24) = user_cs();
	asm volatile("lea 1f(%%rip), %%r13\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     "jmp *%[stub]\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp_out]\n\t"
		     "mov %%r14, %[sp_in]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp_in] "=&r"(sp_in), [sp_out] "=&r"(sp_out),
		       [stk] "+m"(stk)
		     : [top] "r"(top), [stub] "r"(p)
		     : "r12", "r13", "r14", "memory");
	/* EIP and CS as 32 bits each; only CS's low 16 bits are defined. */
	frame = stk[STK_WORDS - 1];
	if ((uint32_t)frame != LOW_STUB + 6 ||
	    (uint16_t)(frame >> 32) != user_cs())
		return 1;
	if (sp_in != top - 8 || sp_out != top)
		return 2;
	return 0;
}

/*
 * IRETL: EIP, CS, EFLAGS (VM set), ESP and SS as 32 bits each, popped
 * through the tagged RSP. It returns to the stub in 64-bit mode, not to
 * virtual-8086 mode, with RSP the popped ESP.
 */
static int stack_iretl(void)
{
	uint32_t *f = (uint32_t *)&stk[STK_WORDS] - 5;
	uint64_t top = tagged_top(), sp;

	if (!low_stub(jmp_r13, sizeof(jmp_r13)))
		return 3;
	f[0] = LOW_STUB;
	f[1] = user_cs();
	f[2] = __builtin_ia32_readeflags_u64() | 1 << 17;	/* VM */
	f[3] = 0x12345670;
	f[4] = user_ss();
	asm volatile("lea 1f(%%rip), %%r13\n\t"
		     "mov %%rsp, %%r12\n\t"
		     "lea -20(%[top]), %%rsp\n\t"
		     "iretl\n"
		     "1:\n\t"
		     "mov %%rsp, %[sp]\n\t"
		     "mov %%r12, %%rsp"
		     : [sp] "=&r"(sp), [stk] "+m"(stk)
		     : [top] "r"(top)
		     : "r12", "r13", "memory", "cc");
	return sp != 0x12345670;
}

static void test_stack(void)
{
	static const struct {
		int (*fn)(void);
		const char *name;
	} t[] = {
		{ stack_push, "PUSH/POP with a tagged RSP" },
		{ stack_call, "near CALL/RET with a tagged RSP" },
		{ stack_pushf, "PUSHF/POPF with a tagged RSP" },
		{ stack_lret, "far RET (LRETQ) with a tagged RSP" },
		{ stack_lretl, "far RET without REX.W (32-bit operands) with a tagged RSP" },
		{ stack_iret, "IRETQ with a tagged RSP" },
		{ stack_lcall, "far CALL (m16:64) with a tagged RSP" },
		{ stack_lcalll, "far CALL (m16:32) to code below 4 GiB with a tagged RSP" },
		{ stack_iretl, "IRETL (VM set in the popped EFLAGS) with a tagged RSP" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(stk, 0, sizeof(stk));
		expect(in_child(t[i].fn), SIGBUS, t[i].name);
	}
}

/* ---- 2. gathers ---- */

static uint64_t qarr[8] __attribute__((aligned(64)));
static uint32_t darr[8] __attribute__((aligned(64)));

static uint64_t tag_of(int i)
{
	/* A different tag for each element, 0 included. */
	return (uint64_t)((i * 0x15 + 0x0b) & 0x3f) << TAG_SHIFT;
}

/* VPGATHERQQ ymm, base untagged, each 64-bit index tagged. */
static int gather_qq(void)
{
	uint64_t idx[4], out[4], mask[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) | (uint64_t)(3 - i) * 8;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherqq %%ymm2, (%[base],%%ymm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vmovdqu %%ymm2, %[mask]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out), [mask] "=m"(mask)
		     : [idx] "m"(idx), [base] "S"(qarr)
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[3 - i] || mask[i])
			return 1 + i;
	return 0;
}

/* VPGATHERQD xmm, dword elements through tagged 64-bit indices. */
static int gather_qd(void)
{
	uint64_t idx[4];
	uint32_t out[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i + 1) | (uint64_t)(i * 2) * 4;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%xmm2, %%xmm2, %%xmm2\n\t"
		     "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
		     "vpgatherqd %%xmm2, (%[base],%%ymm1,1), %%xmm0\n\t"
		     "vmovdqu %%xmm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(darr)
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != darr[i * 2])
			return 1 + i;
	return 0;
}

/* VPGATHERDQ ymm: 32-bit indices cannot hold a tag; the base does. */
static int gather_dq(void)
{
	int32_t idx[4] = { 24, 0, 16, 8 };
	uint64_t out[4];
	int i;

	asm volatile("vmovdqu %[idx], %%xmm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherdq %%ymm2, (%[base],%%xmm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(tag_ptr(qarr, TAG))
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[idx[i] / 8])
			return 1 + i;
	return 0;
}

/* VPGATHERDD ymm, tagged base, scale 4. */
static int gather_dd(void)
{
	int32_t idx[8] = { 7, 6, 5, 4, 3, 2, 1, 0 };
	uint32_t out[8];
	int i;

	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherdd %%ymm2, (%[base],%%ymm1,4), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(tag_ptr(darr, 0x3f))
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 8; i++)
		if (out[i] != darr[7 - i])
			return 1 + i;
	return 0;
}

/*
 * Bit 63 set in the base, user addresses in the elements: each element's
 * own bit 63 selects the LAM width (user pointer, LAM_U57), not the base's.
 */
static int gather_base63(void)
{
	uint64_t base = 1ULL << 63, idx[4], out[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = ((uint64_t)&qarr[i] | tag_of(i)) - base;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherqq %%ymm2, (%[base],%%ymm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(base)
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[i])
			return 1 + i;
	return 0;
}

/* Through FS: the linear address is FS.base + base + tagged index. */
static int gather_fs(void)
{
	uint64_t fsbase = 0, idx[4], out[4];
	int i;

	if (arch_prctl(ARCH_GET_FS, (unsigned long)&fsbase))
		return 99;
	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) | (uint64_t)i * 8;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherqq %%ymm2, %%fs:(%[base],%%ymm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"((uint64_t)qarr - fsbase)
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[i])
			return 1 + i;
	return 0;
}

/* Base RBP: the default segment is SS. */
static int gather_ss(void)
{
	uint64_t idx[4], out[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) | (uint64_t)i * 8;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "mov %%rbp, %%r12\n\t"
		     "mov %[base], %%rbp\n\t"
		     "vpgatherqq %%ymm2, (%%rbp,%%ymm1,1), %%ymm0\n\t"
		     "mov %%r12, %%rbp\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(qarr)
		     : "r12", "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[i])
			return 1 + i;
	return 0;
}

static int have_avx2(void)
{
	unsigned int a, b, c, d;
	uint32_t xcr0_lo, xcr0_hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return 0;
	asm volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	if ((xcr0_lo & 6) != 6)
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
}

static void test_gathers(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		qarr[i] = 0x1111111111111111ULL * (i + 1);
		darr[i] = 0x01010101U * (i + 0x10);
	}
	check(have_avx2(), "the emulated CPU has AVX2 (CPUID.(7,0):EBX[5], XCR0 YMM)");
	expect(in_child(gather_qq), 0, "VPGATHERQQ with tagged 64-bit indices");
	expect(in_child(gather_qd), 0, "VPGATHERQD with tagged 64-bit indices");
	expect(in_child(gather_dq), 0, "VPGATHERDQ with a tagged base");
	expect(in_child(gather_dd), 0, "VPGATHERDD with a tagged base, scale 4");
	expect(in_child(gather_base63), 0,
	       "VPGATHERQQ, base with bit 63 set, tagged user addresses in the elements");
	expect(in_child(gather_fs), SIGSEGV, "VPGATHERQQ through FS with tagged indices");
	expect(in_child(gather_ss), SIGBUS,
	       "VPGATHERQQ with base RBP (SS) and tagged indices");
}

/* ---- 4. segment-override prefixes in 64-bit mode ---- */

/*
 * SDM vol. 1, 3.3.7.1 "Canonical Addressing" and the segment-override
 * rules of 64-bit mode: only FS and GS overrides take effect; CS, DS, ES
 * and SS prefixes are ignored (APM vol. 3: null prefixes). The segment of
 * a reference, and so whether UAI ignores its tag and whether a
 * non-canonical address raises #SS or #GP, is the default one: DS, or SS
 * for a base of RSP or RBP. The prefixes are written as bytes so that the
 * assembler cannot drop them.
 */

/* ss: prefix, base RDI: still a DS reference. */
static int ovr_ss_rdi(void)
{
	uint64_t v, addr = (uint64_t)tag_ptr(&stk[3], TAG);

	stk[3] = 0x5a5a;
	asm volatile(".byte 0x36\n\tmov (%1), %0" : "=r"(v) : "D"(addr) : "memory");
	return v != 0x5a5a;
}

/* cs: prefix, base RDI: still a DS reference. */
static int ovr_cs_rdi(void)
{
	uint64_t v, addr = (uint64_t)tag_ptr(&stk[3], TAG);

	stk[3] = 0x5a5b;
	asm volatile(".byte 0x2e\n\tmov (%1), %0" : "=r"(v) : "D"(addr) : "memory");
	return v != 0x5a5b;
}

/* ds: prefix, base RBP: still an SS reference. */
static int ovr_ds_rbp(void)
{
	uint64_t v, addr = (uint64_t)tag_ptr(&stk[3], TAG);

	stk[3] = 0x5a5c;
	asm volatile("mov %%rbp, %%r12\n\t"
		     "mov %1, %%rbp\n\t"
		     ".byte 0x3e\n\t"
		     "mov 0(%%rbp), %0\n\t"
		     "mov %%r12, %%rbp"
		     : "=&r"(v) : "r"(addr) : "r12", "memory");
	return v != 0x5a5c;
}

/* ds: prefix, base RSP (tagged): still an SS reference. */
static int ovr_ds_rsp(void)
{
	uint64_t v, addr = (uint64_t)tag_ptr(&stk[3], TAG);

	stk[3] = 0x5a5d;
	asm volatile("mov %%rsp, %%r12\n\t"
		     "mov %1, %%rsp\n\t"
		     ".byte 0x3e\n\t"
		     "mov (%%rsp), %0\n\t"
		     "mov %%r12, %%rsp"
		     : "=&r"(v) : "r"(addr) : "r12", "memory");
	return v != 0x5a5d;
}

/* es: prefix on a gather with base RBP: still SS, tagged indices. */
static int ovr_es_gather_rbp(void)
{
	uint64_t idx[4], out[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) | (uint64_t)i * 8;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "mov %%rbp, %%r12\n\t"
		     "mov %[base], %%rbp\n\t"
		     ".byte 0x26\n\t"
		     "vpgatherqq %%ymm2, (%%rbp,%%ymm1,1), %%ymm0\n\t"
		     "mov %%r12, %%rbp\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(qarr)
		     : "r12", "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[i])
			return 1 + i;
	return 0;
}

/* ss: prefix on a gather with base RSI: still DS, tagged indices. */
static int ovr_ss_gather_rsi(void)
{
	uint64_t idx[4], out[4];
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) | (uint64_t)i * 8;
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     ".byte 0x36\n\t"
		     "vpgatherqq %%ymm2, (%[base],%%ymm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(qarr)
		     : "xmm0", "xmm1", "xmm2", "memory");
	for (i = 0; i < 4; i++)
		if (out[i] != qarr[i])
			return 1 + i;
	return 0;
}

static void test_overrides(void)
{
	expect(in_child(ovr_ss_rdi), 0, "ss: prefix on a tagged (%rdi) load (DS)");
	expect(in_child(ovr_cs_rdi), 0, "cs: prefix on a tagged (%rdi) load (DS)");
	expect(in_child(ovr_ds_rbp), SIGBUS, "ds: prefix on a tagged (%rbp) load (SS)");
	expect(in_child(ovr_ds_rsp), SIGBUS, "ds: prefix on a tagged (%rsp) load (SS)");
	expect(in_child(ovr_ss_gather_rsi), 0,
	       "ss: prefix on VPGATHERQQ, base RSI, tagged indices (DS)");
	expect(in_child(ovr_es_gather_rbp), SIGBUS,
	       "es: prefix on VPGATHERQQ, base RBP, tagged indices (SS)");
}

/* ---- 3. a data breakpoint ---- */

static volatile uint64_t watched[2] __attribute__((aligned(16)));
static volatile int step;

enum {
	W_LOAD = 1, W_STORE, W_NEIGHBOUR, W_GATHER, W_PUSH, W_BIT63, W_STEPS,
	W_CHECK = W_STEPS	/* reads that verify a step: hits not counted */
};

static const char *const wname[W_STEPS] = {
	[W_LOAD] = "a load through a tagged pointer",
	[W_STORE] = "a store through a tagged pointer",
	[W_NEIGHBOUR] = "a tagged access to the next quadword",
	[W_GATHER] = "a gather element with a tagged index",
	[W_PUSH] = "a PUSH through a tagged RSP",
	[W_BIT63] = "a load with bits 63:57 set",
};

static int watch_child(void)
{
	uint64_t idx[4], out[4], top, t;
	int i;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 90;
	raise(SIGSTOP);

	step = W_LOAD;
	ds_load((uint64_t)tag_ptr((const void *)watched, 0x15));

	step = W_STORE;
	ds_store((uint64_t)tag_ptr((const void *)watched, 0x3f), 7);

	step = W_NEIGHBOUR;
	t = (uint64_t)tag_ptr((const void *)&watched[1], TAG);
	ds_store(t, ds_load(t) + 1);

	step = W_GATHER;
	for (i = 0; i < 4; i++)
		idx[i] = tag_of(i) + (i == 2 ? (uint64_t)watched - (uint64_t)qarr : 0);
	asm volatile("vmovdqu %[idx], %%ymm1\n\t"
		     "vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
		     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
		     "vpgatherqq %%ymm2, (%[base],%%ymm1,1), %%ymm0\n\t"
		     "vmovdqu %%ymm0, %[out]\n\t"
		     "vzeroupper"
		     : [out] "=m"(out)
		     : [idx] "m"(idx), [base] "S"(qarr)
		     : "xmm0", "xmm1", "xmm2", "memory");
	if (out[2] != 7 || out[0] != qarr[0])
		return 91;

	if (lam) {
		/* The PUSH writes the watched quadword (and nothing reads it). */
		step = W_PUSH;
		top = (uint64_t)tag_ptr((const void *)&watched[1], TAG);
		asm volatile("mov %%rsp, %%r12\n\t"
			     "mov %[top], %%rsp\n\t"
			     "push %[top]\n\t"
			     "mov %%r12, %%rsp"
			     :
			     : [top] "r"(top)
			     : "r12", "memory");
		step = W_CHECK;
		if (watched[0] != top)
			return 92;
	} else {
		step = W_BIT63;
		ds_load((uint64_t)tag_ptr((const void *)watched, TAG) | 1ULL << 63);
	}
	step = 0;
	return 0;
}

static void test_watchpoint(void)
{
	int hits[W_STEPS] = { 0 }, other = 0, status, sig, s, i;
	uint64_t dr6, dr7;
	pid_t pid;

	watched[0] = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(watch_child());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		check(0, "traced child stopped (status %#x)", status);
		return;
	}
	/*
	 * DR0: the untagged address; DR7: L0, R/W0 = 11 (reads and writes),
	 * LEN0 = 10 (8 bytes).
	 */
	dr7 = 1 | 3UL << 16 | 2UL << 18;
	if (ptrace(PTRACE_POKEUSER, pid, offsetof(struct user, u_debugreg[0]),
		   (unsigned long)watched) ||
	    ptrace(PTRACE_POKEUSER, pid, offsetof(struct user, u_debugreg[7]), dr7)) {
		check(0, "ptrace(PTRACE_POKEUSER) sets DR0/DR7 (%s)", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	sig = 0;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			break;
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		sig = WSTOPSIG(status);
		if (sig != SIGTRAP) {
			other = sig;
			continue;
		}
		sig = 0;
		errno = 0;
		dr6 = ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user, u_debugreg[6]), NULL);
		s = (int)ptrace(PTRACE_PEEKDATA, pid, &step, NULL);
		if (errno || !(dr6 & 1) || s <= 0 || s > W_CHECK)
			other = -1;
		else if (s < W_STEPS)
			hits[s]++;
	}
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !other,
	      "%s: the watched child ran to the end (status %#x, signal %d)",
	      lam ? "LAM" : "UAI", status, other);
	for (i = W_LOAD; i < W_STEPS; i++) {
		if ((i == W_PUSH && !lam) || (i == W_BIT63 && !uai))
			continue;
		if (i == W_NEIGHBOUR)
			check(hits[i] == 0, "%s: DR0 at the untagged address: %s does not hit (%d hits)",
			      lam ? "LAM" : "UAI", wname[i], hits[i]);
		else
			check(hits[i] == 1, "%s: DR0 at the untagged address: %s hits (%d hits)",
			      lam ? "LAM" : "UAI", wname[i], hits[i]);
	}
}

/* A counting perf breakpoint on 8 bytes at addr, for this process. */
static int perf_bp(uint64_t addr)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_RW;
	a.bp_addr = addr;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static volatile uint64_t pwatched __attribute__((aligned(16)));

/*
 * The hits of a perf breakpoint at addr on reads of pwatched: untagged,
 * through another tag, through the tag TAG and, on UAI, with bits 63:57
 * all set; -1 if the breakpoint cannot be set. One breakpoint at a time:
 * QEMU reports a single DRn per access when several match it.
 */
static long long bp_hits(uint64_t addr)
{
	uint64_t tagged = (uint64_t)tag_ptr((const void *)&pwatched, TAG);
	uint64_t n = 0;
	int fd = perf_bp(addr);

	if (fd < 0)
		return -1;
	ds_load((uint64_t)&pwatched);
	ds_load((uint64_t)tag_ptr((const void *)&pwatched, 0x15));
	ds_load(tagged);
	if (uai)
		ds_load(tagged | 0xfeULL << 56);
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		n = -2;
	close(fd);
	return n;
}

static void test_tagged_dr0(void)
{
	long long all = lam ? 3 : 4;
	long long n_plain = bp_hits((uint64_t)&pwatched);
	long long n_tagged = bp_hits((uint64_t)tag_ptr((const void *)&pwatched, TAG));
	const char *cpu = lam ? "LAM" : "UAI";

	check(n_plain == all, "%s: DR at the untagged address: every access hits (%lld of %lld)",
	      cpu, n_plain, all);
	if (lam)
		check(n_tagged == 0,
		      "LAM: DR at a tagged address: no access hits, masked addresses have no tag (%lld)",
		      n_tagged);
	else
		check(n_tagged == all,
		      "UAI: DR at a tagged address: every access hits, bits 56:0 match (%lld of %lld)",
		      n_tagged, all);
}

static int cpuid_bit(unsigned int leaf, unsigned int sub, int bit)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(leaf, sub, &a, &b, &c, &d))
		return 0;
	return (a >> bit) & 1;
}

int main(int argc, char **argv)
{
	const char *cpu = argc > 1 ? argv[1] : "";
	long r;

	lam = !strcmp(cpu, "lam");
	uai = !strcmp(cpu, "uai");
	if (!lam && !uai) {
		fprintf(stderr, "usage: emul-paths lam|uai\n");
		return 2;
	}
	check(lam ? cpuid_bit(7, 1, 26) : cpuid_bit(0x80000021, 0, 7),
	      "the CPU reports %s", lam ? "LAM" : "UAI");
	errno = 0;
	r = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS);
	check(r == 0, "arch_prctl(ARCH_ENABLE_TAGGED_ADDR, %d) (%s)", TAG_BITS, strerror(errno));
	if (r)
		return 1;

	test_stack();
	test_gathers();
	test_overrides();
	test_watchpoint();
	test_tagged_dr0();
	return tap_end();
}
