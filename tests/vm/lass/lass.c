// SPDX-License-Identifier: GPL-2.0
/*
 * The LASS rules of the emulated CPU, seen from a freestanding guest in the
 * style of kvm-unit-tests (booted by `tests/vm/run --bare`; boot.S sets up
 * the machine and makes the accesses).
 *
 * Intel ISE, "Linear Address Space Separation": with CR4.LASS (bit 27,
 * enumerated by CPUID.(EAX=7,ECX=1):EAX[6]) in 64-bit mode, before paging
 * and on the address after LAM masking (bit 63 is never masked):
 *   - a user-mode data access or fetch to an address with bit 63 set,
 *   - a supervisor-mode fetch from an address with bit 63 clear,
 *   - a supervisor-mode data access to an address with bit 63 clear while
 *     CR4.SMAP is set, unless explicit with EFLAGS.AC set (STAC),
 * are violations: #GP(0), or #SS(0) for a stack reference, with CR2 left
 * alone, as for a non-canonical address.
 *
 * Each probe has two answers: with LASS (the rule above) and without it
 * (what paging, SMAP and SMEP say: #PF, or nothing). The guest picks the
 * column from CPUID, so the same binary runs on `--cpu lam` (LASS) and on
 * `--cpu lam --no-lass`, where setting CR4.LASS must raise #GP. Prints TAP
 * on COM1 and exits through isa-debug-exit: 0 if every check passed.
 *
 * A non-canonical address has one answer on every CPU, LASS, LAM or
 * neither: #SS(0) for a stack reference (SDM vol. 3, "Interrupt 12 - Stack
 * Fault Exception"), #GP(0) otherwise, also in an instruction that makes
 * both kinds of reference (PUSH and CALL of a memory operand, POP into
 * one): check_noncanonical().
 */
#include <stdarg.h>
#include <stdint.h>

#define KBASE		0xffffffff80000000UL
#define LOW(p)		((unsigned long)(p) - KBASE)	/* the user-half alias */

#define X86_CR4_SMEP	(1UL << 20)
#define X86_CR4_SMAP	(1UL << 21)
#define X86_CR4_LASS	(1UL << 27)
#define X86_CR4_LAM_SUP	(1UL << 28)
#define X86_CR3_LAM_U57	(1UL << 61)

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define TSS_SEL		0x28
#define LDT_SEL		0x38

#define NONE		-1	/* the access completed */
#define BP		3
#define SS		12
#define GP		13
#define PF		14
#define DF		8
#define NR_VECTORS	20

#define COM1		0x3f8
#define DEBUG_EXIT	0xf4
#define CR2_MARK	0x5a5a5000UL

/* What trap_common pushed, lowest address first. */
struct frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vec, err;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct gate {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, zero;
} __attribute__((packed));

struct tss {
	uint32_t res0;
	uint64_t rsp[3];
	uint64_t res1;
	uint64_t ist[7];
	uint64_t res2;
	uint16_t res3, iomap;
} __attribute__((packed));

/* boot.S */
extern char trap_stubs[], trap_stack_top[], ist_stack_top[], ret_page[];
extern char ustub_load[], ustub_load_ss[], ustub_fetch[], ustub_push[];
extern char ustub_iret[];
extern uint64_t gdt_tss[2], gdt_ldt[2];
unsigned long probe_load(unsigned long addr);
unsigned long probe_load_ac(unsigned long addr);
unsigned long probe_load_ss(unsigned long addr);
unsigned long probe_load_ss_ac(unsigned long addr);
unsigned long probe_fetch(unsigned long addr);
unsigned long probe_push(unsigned long rsp);
unsigned long probe_push_ac(unsigned long rsp);
unsigned long probe_push_mem(unsigned long addr);
unsigned long probe_call_mem(unsigned long addr);
unsigned long probe_pop_mem(unsigned long addr);
unsigned long probe_push_ss_mem(unsigned long addr);
unsigned long probe_pop(unsigned long rsp);
unsigned long probe_leave(unsigned long rbp);
unsigned long probe_ldt(void);
unsigned long probe_ldt_ac(void);
unsigned long probe_write_cr4(unsigned long cr4);
unsigned long probe_user(unsigned long entry, unsigned long arg);
void lass_main(void);
void trap(struct frame *f);

/* Read by boot.S's probes. */
unsigned long landing_rip, landing_rsp, probe_trap;

static struct gate idt[NR_VECTORS] __attribute__((aligned(16)));
static struct tss tss __attribute__((aligned(16)));
static struct { uint64_t vec, err, rip, cr2; } last;
static volatile uint64_t kernel_data = 0x6b6b6b6b;
static volatile uint64_t user_data[512] __attribute__((aligned(4096)));
static volatile uint64_t kernel_scratch[512] __attribute__((aligned(4096)));
/* One data descriptor; the LDT itself is used through the user half. */
static uint64_t ldt[1] __attribute__((aligned(4096))) = { 0x00cf92000000ffff };
static int tests, failed;

static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a" (v), "Nd" (port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a" (v) : "Nd" (port));
	return v;
}

#define DEFINE_CR(n)							\
static inline unsigned long read_cr##n(void)				\
{									\
	unsigned long v;						\
									\
	asm volatile("mov %%cr" #n ", %0" : "=r" (v));			\
	return v;							\
}									\
static inline void write_cr##n(unsigned long v)			\
{									\
	asm volatile("mov %0, %%cr" #n : : "r" (v) : "memory");	\
}
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	asm volatile("cpuid" : "=a" (r[0]), "=b" (r[1]), "=c" (r[2]), "=d" (r[3])
		     : "a" (leaf), "c" (sub));
}

static void putc_com1(char c)
{
	while (!(inb(COM1 + 5) & 0x20))
		;
	outb(COM1, c);
}

static void puts_com1(const char *s)
{
	while (*s)
		putc_com1(*s++);
}

static void put_num(unsigned long v, unsigned int base)
{
	char buf[24];
	int i = 0;

	do {
		buf[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i)
		putc_com1(buf[--i]);
}

/* %s, %d (non-negative), %u, %lx: all this file prints. */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			putc_com1(*fmt);
			continue;
		}
		switch (*++fmt) {
		case 's':
			puts_com1(va_arg(ap, const char *));
			break;
		case 'd':
		case 'u':
			put_num(va_arg(ap, unsigned int), 10);
			break;
		case 'l':
			fmt++;		/* %lx */
			puts_com1("0x");
			put_num(va_arg(ap, unsigned long), 16);
			break;
		}
	}
	va_end(ap);
}

static __attribute__((noreturn)) void finish(int status)
{
	outb(DEBUG_EXIT, status);
	for (;;)
		asm volatile("hlt");
}

/*
 * Every trap lands back in the probe that set a landing point; any other
 * is a broken test machine.
 */
void trap(struct frame *f)
{
	last.vec = f->vec;
	last.err = f->err;
	last.rip = f->rip;
	last.cr2 = read_cr2();
	if (!landing_rip) {
		say("Bail out! unexpected trap %u, error code %lx at %lx, CR2 %lx\n",
		    (unsigned int)f->vec, f->err, f->rip, last.cr2);
		finish(2);
	}
	probe_trap = f->vec + 1;
	f->rip = landing_rip;
	f->rsp = landing_rsp;
	f->cs = KERNEL_CS;
	f->ss = KERNEL_DS;
	f->rflags = 2;
}

static const char *vec_name(int vec)
{
	switch (vec) {
	case NONE:
		return "no fault";
	case SS:
		return "#SS";
	case GP:
		return "#GP";
	case PF:
		return "#PF";
	default:
		return "another trap";
	}
}

/*
 * TRAP is a probe's result (0, or vector + 1). A user-mode probe that
 * completed ends in INT3: that is no fault too. A LASS #GP or #SS has
 * error code 0 and leaves CR2 alone.
 */
static void check(const char *what, unsigned long trap, int want, int user)
{
	int got = trap ? (int)trap - 1 : NONE;
	int pass;

	if (user && got == BP)
		got = NONE;
	pass = got == want;
	if (pass && (got == GP || got == SS))
		pass = last.err == 0 && last.cr2 == CR2_MARK;
	tests++;
	if (!pass)
		failed++;
	say("%sok %d - %s: %s\n", pass ? "" : "not ", tests, what, vec_name(want));
	if (!pass)
		say("#   got %s (vector %u), error code %lx, CR2 %lx, RIP %lx\n",
		    vec_name(got), (unsigned int)(trap - 1), last.err, last.cr2,
		    last.rip);
	write_cr2(CR2_MARK);
}

/* Where the last fault was reported: a fetch fault at its target. */
static void check_rip(const char *what, unsigned long want)
{
	int pass = last.rip == want;

	tests++;
	if (!pass)
		failed++;
	say("%sok %d - %s: reported at its target\n", pass ? "" : "not ",
	    tests, what);
	if (!pass)
		say("#   reported at %lx, not at %lx\n", last.rip, want);
}

static void set_gate(int vec, int dpl, int ist)
{
	unsigned long h = (unsigned long)trap_stubs + 16 * vec;

	idt[vec] = (struct gate){
		.off0 = h, .sel = KERNEL_CS, .ist = ist, .type = 0x8e | dpl << 5,
		.off1 = h >> 16, .off2 = h >> 32,
	};
}

/* A 16-byte system descriptor of long mode (TSS: type 9, LDT: type 2). */
static void set_system_desc(uint64_t d[2], uint64_t base, uint32_t limit,
			    int type)
{
	d[0] = limit | (base & 0xffffff) << 16 | (uint64_t)(0x80 | type) << 40 |
	       (base >> 24 & 0xff) << 56;
	d[1] = base >> 32;
}

static void setup_traps(void)
{
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) idtr = {
		sizeof(idt) - 1, (uint64_t)idt,
	};
	uint64_t base = (uint64_t)&tss;
	int vec;

	/*
	 * INT3 is allowed from user mode. The faults a probe may raise are
	 * delivered on a stack of their own (IST 1), so that a probe may fault
	 * with RSP anywhere.
	 */
	for (vec = 0; vec < NR_VECTORS; vec++)
		set_gate(vec, vec == BP ? 3 : 0,
			 vec == DF || vec == SS || vec == GP || vec == PF);
	asm volatile("lidt %0" : : "m" (idtr));
	tss.rsp[0] = (uint64_t)trap_stack_top;
	tss.ist[0] = (uint64_t)ist_stack_top;
	tss.iomap = sizeof(tss);
	set_system_desc(gdt_tss, base, sizeof(tss) - 1, 9);
	asm volatile("ltr %w0" : : "r" (TSS_SEL));
	set_system_desc(gdt_ldt, LOW(ldt), sizeof(ldt) - 1, 2);
	asm volatile("lldt %w0" : : "r" (LDT_SEL));
}

/*
 * Addresses that are not canonical with 4- or 5-level paging, with bit 63
 * set (a supervisor address for LASS) or clear (a user one), so that LASS
 * has nothing to say about the supervisor's or the user's accesses.
 */
#define NC_HIGH		0x8000000000001000UL
#define NC_LOW		0x4000000000001000UL

static void check_noncanonical(void)
{
	check("non-canonical: supervisor load", probe_load(NC_HIGH), GP, 0);
	check("non-canonical: supervisor stack load (%rbp)",
	      probe_load_ss(NC_HIGH), SS, 0);
	check("non-canonical: supervisor PUSH", probe_push(NC_HIGH + 256), SS, 0);
	check("non-canonical: supervisor POP", probe_pop(NC_HIGH), SS, 0);
	check("non-canonical: supervisor LEAVE (%rbp)", probe_leave(NC_HIGH), SS, 0);
	check("non-canonical: supervisor PUSH of a stack operand (%rbp)",
	      probe_push_ss_mem(NC_HIGH), SS, 0);
	check("non-canonical: supervisor PUSH of a DS operand, good stack",
	      probe_push_mem(NC_HIGH), GP, 0);
	check("non-canonical: supervisor CALL through a DS operand, good stack",
	      probe_call_mem(NC_HIGH), GP, 0);
	check("non-canonical: supervisor POP into a DS operand, good stack",
	      probe_pop_mem(NC_HIGH), GP, 0);
	check("non-canonical: user load",
	      probe_user(LOW(ustub_load), NC_LOW), GP, 1);
	check("non-canonical: user stack load (%rbp)",
	      probe_user(LOW(ustub_load_ss), NC_LOW), SS, 1);
	check("non-canonical: user PUSH",
	      probe_user(LOW(ustub_push), NC_LOW + 256), SS, 1);
	check("non-canonical: user IRETQ's stack (a helper's access)",
	      probe_user(LOW(ustub_iret), NC_LOW + 256), SS, 1);
}

void lass_main(void)
{
	unsigned long k_low = LOW(user_data), k_high = (unsigned long)&kernel_data;
	unsigned long ret_low = LOW(ret_page), ret_high = (unsigned long)ret_page;
	unsigned long u_load = LOW(ustub_load), u_load_ss = LOW(ustub_load_ss);
	unsigned long u_fetch = LOW(ustub_fetch);
	unsigned long cr4, base, tagged;
	uint32_t r[4];
	int lass, lam;

	say("# LASS test guest\n");
	setup_traps();
	write_cr2(CR2_MARK);
	cpuid(7, 1, r);
	lass = r[0] >> 6 & 1;
	lam = r[0] >> 26 & 1;
	cpuid(7, 0, r);
	if (!(r[1] & 1 << 7) || !(r[1] & 1 << 20)) {
		say("Bail out! the CPU has no SMEP or no SMAP\n");
		finish(2);
	}
	say("# CPUID: LASS %s, LAM %s\n", lass ? "yes" : "no", lam ? "yes" : "no");
	cr4 = read_cr4() | X86_CR4_SMEP | X86_CR4_SMAP;
	write_cr4(cr4);

	check("CR4.LASS set: a reserved bit without CPUID's LASS",
	      probe_write_cr4(cr4 | X86_CR4_LASS), lass ? NONE : GP, 0);
	if (lass)
		cr4 |= X86_CR4_LASS;
	write_cr4(cr4);

	check("supervisor load from the user half, AC=0",
	      probe_load(k_low), lass ? GP : PF, 0);
	check("supervisor load from the user half, AC=1",
	      probe_load_ac(k_low), NONE, 0);
	check("supervisor stack load (%rbp) from the user half, AC=0",
	      probe_load_ss(k_low), lass ? SS : PF, 0);
	check("supervisor stack load (%rbp) from the user half, AC=1",
	      probe_load_ss_ac(k_low), NONE, 0);
	check("supervisor PUSH with RSP in the user half, AC=0",
	      probe_push(k_low + 256), lass ? SS : PF, 0);
	check("supervisor PUSH with RSP in the user half, AC=1",
	      probe_push_ac(k_low + 256), NONE, 0);
	check("DS from an LDT in the user half (implicit access), AC=0",
	      probe_ldt(), lass ? GP : PF, 0);
	check("DS from an LDT in the user half (implicit access), AC=1",
	      probe_ldt_ac(), lass ? GP : NONE, 0);
	check("supervisor fetch from the user half, AC=1",
	      probe_fetch(ret_low), lass ? GP : PF, 0);
	check_rip("supervisor fetch from the user half", ret_low);
	check("supervisor load from the kernel half", probe_load(k_high), NONE, 0);
	check("supervisor fetch from the kernel half", probe_fetch(ret_high), NONE, 0);
	check("user load from the kernel half",
	      probe_user(u_load, k_high), lass ? GP : PF, 1);
	check("user stack load (%rbp) from the kernel half",
	      probe_user(u_load_ss, k_high), lass ? SS : PF, 1);
	check("user fetch from the kernel half",
	      probe_user(u_fetch, ret_high), lass ? GP : PF, 1);
	check_rip("user fetch from the kernel half", ret_high);
	check("user PUSH with RSP in the kernel half",
	      probe_user(LOW(ustub_push), (unsigned long)kernel_scratch + 256),
	      lass ? SS : PF, 1);
	check("user IRETQ with RSP in the kernel half (a helper's stack access)",
	      probe_user(LOW(ustub_iret), (unsigned long)kernel_scratch + 256),
	      lass ? SS : PF, 1);
	check("user load from the user half", probe_user(u_load, k_low), NONE, 1);
	check("user fetch from the user half", probe_user(u_fetch, ret_low), NONE, 1);
	check_noncanonical();

	/* CR4.SMAP clear: supervisor data accesses are not checked, fetches are. */
	write_cr4(cr4 & ~X86_CR4_SMAP);
	check("CR4.SMAP clear: supervisor load from the user half, AC=0",
	      probe_load(ret_low), NONE, 0);
	check("CR4.SMAP clear: supervisor fetch from the page it just loaded from",
	      probe_fetch(ret_low), lass ? GP : PF, 0);

	/*
	 * CR4.SMEP clear: paging lets the kernel fetch from a user page, LASS
	 * does not, even right after a data access to it filled the TLB.
	 */
	write_cr4(cr4 & ~X86_CR4_SMEP);
	check("CR4.SMEP clear: supervisor load from the user half, AC=1",
	      probe_load_ac(ret_low), NONE, 0);
	check("CR4.SMEP clear: supervisor fetch from the page it just loaded from",
	      probe_fetch(ret_low), lass ? GP : NONE, 0);
	write_cr4(cr4);

	/* A change of CR4.LASS leaves no TLB entry filled under the other rule. */
	base = cr4 & ~(X86_CR4_SMEP | X86_CR4_LASS);
	write_cr4(base);
	check("CR4.LASS and CR4.SMEP clear: supervisor fetch from the user half",
	      probe_fetch(ret_low), NONE, 0);
	if (lass) {
		write_cr4(base | X86_CR4_LASS);
		check("CR4.LASS set again: the same fetch",
		      probe_fetch(ret_low), GP, 0);
	}
	write_cr4(cr4);

	if (lam) {
		/*
		 * LAM masks first, then LASS judges the address; LAM keeps bit
		 * 63, so a tagged user pointer stays a user address and a
		 * tagged kernel pointer a kernel one.
		 */
		write_cr3(read_cr3() | X86_CR3_LAM_U57);
		tagged = k_low | 0x2aUL << 57;
		check("LAM_U57: supervisor load through a tagged user pointer, AC=1",
		      probe_load_ac(tagged), NONE, 0);
		check("LAM_U57: supervisor load through a tagged user pointer, AC=0",
		      probe_load(tagged), lass ? GP : PF, 0);
		check("LAM_U57: user load through a tagged user pointer",
		      probe_user(u_load, tagged), NONE, 1);
		write_cr3(read_cr3() & ~X86_CR3_LAM_U57);

		write_cr4(cr4 | X86_CR4_LAM_SUP);
		tagged = k_high ^ 0x5aUL << 48;	/* bits 62:48, bit 63 kept */
		check("LAM_SUP: supervisor load through a tagged kernel pointer",
		      probe_load(tagged), NONE, 0);
		check("LAM_SUP: user load through a tagged kernel pointer",
		      probe_user(u_load, tagged), lass ? GP : PF, 1);
		write_cr4(cr4);
	}

	say("1..%d\n", tests);
	say("# %d passed, %d failed\n", tests - failed, failed);
	finish(failed ? 1 : 0);
}
