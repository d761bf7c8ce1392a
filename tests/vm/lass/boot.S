/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LASS test guest's machine-level half: the PVH entry (32-bit protected
 * mode, paging off), page tables with a user half and a kernel half, long
 * mode, the trap stubs, and the probes lass.c runs: one access each, from
 * the kernel or from user mode, landing back in the probe whether or not
 * it faulted. lass.c is the test; this file only makes accesses.
 *
 * Address space (4-level paging, 2 MiB pages):
 *   0 .. 1 GiB                      physical 0 .. 1 GiB, user pages (U=1)
 *   KBASE .. KBASE + 1 GiB          the same memory, supervisor pages
 * The image runs in the kernel half, as Linux does; its low alias is where
 * user-mode code and data live.
 */
#define KBASE		0xffffffff80000000
#define PHYS(x)		((x) - KBASE)

#define CR0_PE		(1 << 0)
#define CR0_WP		(1 << 16)
#define CR0_PG		(1 << 31)
#define CR4_PAE		(1 << 5)
#define MSR_EFER	0xc0000080
#define EFER_LME	(1 << 8)
#define EFER_NXE	(1 << 11)

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define USER_DS		(0x18 | 3)
#define USER_CS		(0x20 | 3)

/* PVH: QEMU's loader starts XEN_ELFNOTE_PHYS32_ENTRY in 32-bit flat mode. */
	.section .note.pvh, "a"
	.p2align 2
	.long 4, 8, 18		/* namesz, descsz, XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.p2align 2
	.quad pvh_start

	.section .boot, "ax"
	.code32
	.globl pvh_start
pvh_start:
	cli
	movl $PHYS(stack_top), %esp
	movl $PHYS(pml4), %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_PE), %eax
	movl %eax, %cr0
	lgdt gdt_ptr32
	ljmp $KERNEL_CS, $start64

	.code64
start64:
	movabs $high64, %rax
	jmp *%rax

	.p2align 3
gdt_ptr32:
	.word gdt_end - gdt - 1
	.long PHYS(gdt)

	.text
high64:
	lgdt gdt_ptr(%rip)
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl %eax, %fs
	movl %eax, %gs
	leaq stack_top(%rip), %rsp
	call lass_main
1:	hlt
	jmp 1b

/*
 * Trap stubs, 16 bytes apart: trap_stubs + 16 * vector. Each pushes an
 * error code if the CPU did not, then the vector; trap_common saves every
 * register as struct frame (lass.c) and calls trap().
 */
.macro STUB vec, has_err
	.p2align 4
	.if \has_err == 0
	pushq $0
	.endif
	pushq $\vec
	jmp trap_common
.endm

	.p2align 4
	.globl trap_stubs
trap_stubs:
	STUB 0, 0
	STUB 1, 0
	STUB 2, 0
	STUB 3, 0
	STUB 4, 0
	STUB 5, 0
	STUB 6, 0
	STUB 7, 0
	STUB 8, 1
	STUB 9, 0
	STUB 10, 1
	STUB 11, 1
	STUB 12, 1
	STUB 13, 1
	STUB 14, 1
	STUB 15, 0
	STUB 16, 0
	STUB 17, 1
	STUB 18, 0
	STUB 19, 0

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	call trap
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

/*
 * A probe sets a landing point before its access: trap() resumes there, in
 * the kernel, with the stack pointer of that moment and EFLAGS.AC clear,
 * after noting the trap in probe_trap (vector + 1). A probe returns
 * probe_trap: 0 if its access completed.
 */
.macro LANDING
	leaq 9f(%rip), %rax
	movq %rax, landing_rip(%rip)
	movq %rsp, landing_rsp(%rip)
	movq $0, probe_trap(%rip)
.endm

.macro RESULT
9:	movq $0, landing_rip(%rip)
	movq probe_trap(%rip), %rax
.endm

/* unsigned long probe_load(unsigned long addr): a supervisor load via DS */
	.globl probe_load
probe_load:
	LANDING
	movq (%rdi), %rcx
	RESULT
	ret

/* the same with EFLAGS.AC set: STAC, the SMAP (and LASS) override */
	.globl probe_load_ac
probe_load_ac:
	LANDING
	stac
	movq (%rdi), %rcx
	clac
	RESULT
	ret

/* a supervisor load through %rbp: a stack (SS) reference */
	.globl probe_load_ss
probe_load_ss:
	pushq %rbp
	LANDING
	movq %rdi, %rbp
	movq 0(%rbp), %rcx
	RESULT
	popq %rbp
	ret

	.globl probe_load_ss_ac
probe_load_ss_ac:
	pushq %rbp
	LANDING
	stac
	movq %rdi, %rbp
	movq 0(%rbp), %rcx
	clac
	RESULT
	popq %rbp
	ret

/* a supervisor fetch: a call to a RET at addr, with EFLAGS.AC set */
	.globl probe_fetch
probe_fetch:
	LANDING
	stac
	call *%rdi
	clac
	RESULT
	ret

/* a supervisor PUSH with RSP = addr: a stack reference by the translator */
	.globl probe_push
probe_push:
	LANDING
	movq %rdi, %rsp
	pushq %rax
	movq landing_rsp(%rip), %rsp
	RESULT
	ret

	.globl probe_push_ac
probe_push_ac:
	LANDING
	stac
	movq %rdi, %rsp
	pushq %rax
	movq landing_rsp(%rip), %rsp
	clac
	RESULT
	ret

/*
 * Instructions with a stack reference and a reference through DS, of the
 * other access kind: PUSH and CALL of a memory operand at addr (a load)
 * onto a good stack (a store), POP from a good stack (a load) into one (a
 * store); and PUSH of a memory operand through %rbp = addr, and POP and
 * LEAVE with RSP or RBP = addr, which only make stack references.
 */
	.globl probe_push_mem
probe_push_mem:
	LANDING
	pushq (%rdi)
	movq landing_rsp(%rip), %rsp
	RESULT
	ret
	.globl probe_call_mem
probe_call_mem:
	LANDING
	call *(%rdi)
	RESULT
	ret
	.globl probe_pop_mem
probe_pop_mem:
	LANDING
	pushq $0
	popq (%rdi)
	RESULT
	ret
	.globl probe_push_ss_mem
probe_push_ss_mem:
	pushq %rbp
	LANDING
	movq %rdi, %rbp
	pushq 0(%rbp)
	movq landing_rsp(%rip), %rsp
	RESULT
	popq %rbp
	ret
	.globl probe_pop
probe_pop:
	LANDING
	movq %rdi, %rsp
	popq %rax
	movq landing_rsp(%rip), %rsp
	RESULT
	ret
	.globl probe_leave
probe_leave:
	pushq %rbp
	LANDING
	movq %rdi, %rbp
	leave
	movq landing_rsp(%rip), %rsp
	RESULT
	popq %rbp
	ret

/*
 * DS loaded from the LDT (selector 4: index 0, TI=1), which lass.c puts in
 * the user half: an implicit supervisor access, with EFLAGS.AC set or not
 */
	.globl probe_ldt
probe_ldt:
	LANDING
	movl $4, %eax
	movl %eax, %ds
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	RESULT
	ret

	.globl probe_ldt_ac
probe_ldt_ac:
	LANDING
	stac
	movl $4, %eax
	movl %eax, %ds
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	clac
	RESULT
	ret

/* MOV to CR4: 0 or #GP (a reserved bit) */
	.globl probe_write_cr4
probe_write_cr4:
	LANDING
	movq %rdi, %cr4
	RESULT
	ret

/*
 * unsigned long probe_user(unsigned long entry, unsigned long arg): run the
 * user-mode stub at entry (an address in the user half) with arg in %rdi
 * and the user stack; the stub ends in INT3, so a completed access comes
 * back as vector 3. The user stub may clobber what the kernel keeps in
 * callee-saved registers: they are saved here.
 */
	.globl probe_user
probe_user:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	LANDING
	pushq $USER_DS
	movabs $PHYS(user_stack_top), %rax
	pushq %rax
	pushq $2			/* EFLAGS: IF and AC clear */
	pushq $USER_CS
	pushq %rdi
	movq %rsi, %rdi
	iretq
	RESULT
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

/* User-mode stubs, run through the user half (position-independent). */
	.globl ustub_load
ustub_load:
	movq (%rdi), %rax
	int3

	.globl ustub_load_ss
ustub_load_ss:
	movq %rdi, %rbp
	movq 0(%rbp), %rax
	int3

	.globl ustub_fetch
ustub_fetch:
	call *%rdi
	int3

	.globl ustub_push
ustub_push:
	movq %rdi, %rsp
	pushq %rax
	int3

/* IRETQ pops its frame through a helper, as a user-mode stack access */
	.globl ustub_iret
ustub_iret:
	movq %rdi, %rsp
	iretq

/* A RET for the fetch probes, in the kernel half and (aliased) the user half */
	.p2align 12
	.globl ret_page
ret_page:
	ret
	.p2align 12

	.data
	.p2align 3
gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* KERNEL_CS: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* KERNEL_DS */
	.quad 0x00cff2000000ffff	/* USER_DS: DPL 3 */
	.quad 0x00affa000000ffff	/* USER_CS: 64-bit code, DPL 3 */
	.globl gdt_tss
gdt_tss:
	.quad 0, 0			/* the TSS, filled by lass.c */
	.globl gdt_ldt
gdt_ldt:
	.quad 0, 0			/* the LDT, filled by lass.c */
gdt_end:

	.p2align 3
gdt_ptr:
	.word gdt_end - gdt - 1
	.quad gdt

	.p2align 12
pml4:
	.quad PHYS(pdpt_low) + 0x7	/* P, RW, US */
	.fill 510, 8, 0
	.quad PHYS(pdpt_high) + 0x3	/* P, RW */
pdpt_low:
	.quad PHYS(pd_low) + 0x7
	.fill 511, 8, 0
pdpt_high:
	.fill 510, 8, 0
	.quad PHYS(pd_high) + 0x3	/* KBASE: entry 510 */
	.quad 0
pd_low:
	.set i, 0
	.rept 512
	.quad (i << 21) | 0x87		/* 2 MiB: P, RW, US, PS */
	.set i, i + 1
	.endr
pd_high:
	.set i, 0
	.rept 512
	.quad (i << 21) | 0x83		/* 2 MiB: P, RW, PS */
	.set i, i + 1
	.endr

	.bss
	.p2align 12
	.skip 16384
stack_top:
	.globl trap_stack_top
	.skip 16384
trap_stack_top:
	.globl ist_stack_top
	.skip 16384
ist_stack_top:
	.skip 4096
user_stack_top:
