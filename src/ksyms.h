/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel code addresses to "symbol+0xoff", from /proc/kallsyms. */
#ifndef TT_KSYMS_H
#define TT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ksyms;

/* Reads a kallsyms-format stream; NULL with errno set on failure. */
struct ksyms *ksyms_load(FILE *in);
void ksyms_free(struct ksyms *ks);
/* "sym+0xoff" into buf; the bare address when ks is NULL or nothing covers it. */
const char *ksyms_format(const struct ksyms *ks, unsigned long long addr,
			 char *buf, size_t len);
/*
 * Does a kallsyms-format stream list name, of any type? Data symbols are
 * there only with CONFIG_KALLSYMS_ALL.
 */
bool ksyms_has(FILE *in, const char *name);
/* The same for n names in one pass: found[i] for names[i]. */
void ksyms_find(FILE *in, const char *const *names, bool *found, int n);

#endif /* TT_KSYMS_H */
