/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 system call names, from the kernel's uapi header at build time. */
#ifndef TT_SYSNAMES_H
#define TT_SYSNAMES_H

#include <stddef.h>

/*
 * The name of system call nr: "write"; "none" for TT_NO_SYSCALL (no system
 * call: a kernel or io_uring thread, or none in progress), "syscall_NR" for a number the header
 * does not name. buf holds the latter.
 */
const char *tt_syscall_name(int nr, char *buf, size_t len);

#endif /* TT_SYSNAMES_H */
