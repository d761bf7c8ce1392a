/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A linked image for tests/kernel/test-uaccess-ss.sh: instructions with
 * __ex_table entries, as the kernel's user accesses have, some of which
 * reference SS, FS or GS. arch/x86/tools/uaccess_ss (kernel/series) must
 * name exactly the user accesses marked "SS", "FS" or "GS" and fail, or
 * with --record count them into uaccess_ss_sites, as it does in vmlinux.
 */
	.text
	.globl _start
	.type _start, @function
_start:
1:	mov (%rbp), %eax		/* SS, EX_TYPE_UACCESS */
2:	mov 8(%rsp), %rax		/* SS, EX_TYPE_EFAULT_REG */
3:	movl $0, 16(%rbp,%rcx,4)	/* SS, EX_TYPE_UCOPY_LEN1: SIB base */
4:	mov (%r13), %eax		/* r13 (REX.B): DS */
5:	mov 0x10(%r12), %eax		/* r12 (REX.B): DS */
6:	mov %ss:(%rdi), %eax		/* an SS override, ignored in 64-bit mode */
7:	mov (,%rbp,2), %eax		/* rbp as the index: DS */
8:	mov (%rbp), %edx		/* SS, but EX_TYPE_DEFAULT: no user access */
9:	rep movsb			/* rsi/rdi: DS and ES */
10:	mov %gs:(%rdi), %eax		/* GS: not untagged either */
11:	mov %gs:(%rdi), %edx		/* GS, but EX_TYPE_DEFAULT */
12:	mov %fs:8(%rsp), %eax		/* FS, before the SS base */
13:	gs movsb			/* GS: a string instruction, no ModRM */
14:	.byte 0x66, 0x67, 0xf3, 0x2e, 0x64, 0x8b, 0x07	/* FS: 5th prefix */
15:	vmovdqu (%r13), %ymm0		/* VEX.B: %r13, DS */
rex2_ss:				/* SS: REX2 with X4 set, base %rsp */
16:	.byte 0xd5, 0x20, 0x8b, 0x04, 0x24
17:	.byte 0xd5, 0x01, 0x8b, 0x04, 0x24	/* REX2 B3: base %r12, DS */
	ret
	.size _start, .-_start

	/* struct exception_table_entry: insn, fixup, data (type | imm << 16) */
	.section __ex_table, "a"
	.balign 4
	.long 1b - ., 0, 3
	.long 2b - ., 0, 0xfff20011
	.long 3b - ., 0, 0x10013
	.long 4b - ., 0, 3
	.long 5b - ., 0, 3
	.long 6b - ., 0, 3
	.long 7b - ., 0, 3
	.long 8b - ., 0, 1
	.long 9b - ., 0, 0x10013
	.long 10b - ., 0, 3
	.long 11b - ., 0, 1
	.long 12b - ., 0, 3
	.long 13b - ., 0, 0x10013
	.long 14b - ., 0, 3
	.long 15b - ., 0, 3
	.long 16b - ., 0, 3
	.long 17b - ., 0, 3

	/* What the kernel reads at boot (arch/x86/mm/tagged_addr.c). */
	.data
	.balign 4
	.type uaccess_ss_sites, @object
	.size uaccess_ss_sites, 4
uaccess_ss_sites:
	.long 0
	.type uaccess_ss_after, @object
	.size uaccess_ss_after, 4
uaccess_ss_after:
	.long 0x5a5a5a5a
