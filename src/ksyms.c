// SPDX-License-Identifier: GPL-2.0
/* Kernel code addresses to "symbol+0xoff", and symbols, from /proc/kallsyms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"

struct ksym {
	unsigned long long addr;
	char *name;
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
	size_t cap;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int push(struct ksyms *ks, unsigned long long addr, const char *name)
{
	if (ks->nr == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *n = realloc(ks->syms, cap * sizeof(*n));

		if (!n)
			return -1;
		ks->syms = n;
		ks->cap = cap;
	}
	ks->syms[ks->nr].name = strdup(name);
	if (!ks->syms[ks->nr].name)
		return -1;
	ks->syms[ks->nr++].addr = addr;
	return 0;
}

struct ksyms *ksyms_load(FILE *in)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char line[512], name[256], type;
	unsigned long long addr;

	if (!ks)
		return NULL;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		/* Code only; a zero address means kptr_restrict hid them. */
		if (!addr || (type != 't' && type != 'T'))
			continue;
		if (push(ks, addr, name)) {
			ksyms_free(ks);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (!ks->nr) {
		ksyms_free(ks);
		errno = ENOENT;
		return NULL;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_addr);
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->nr; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	free(ks);
}

const char *ksyms_format(const struct ksyms *ks, unsigned long long addr,
			 char *buf, size_t len)
{
	size_t lo = 0, hi = ks ? ks->nr : 0;

	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		snprintf(buf, len, "0x%llx", addr);
	else
		snprintf(buf, len, "%s+0x%llx", ks->syms[lo - 1].name,
			 addr - ks->syms[lo - 1].addr);
	return buf;
}

void ksyms_find(FILE *in, const char *const *names, bool *found, int n)
{
	char line[512], *sym;
	int i, left = n;

	for (i = 0; i < n; i++)
		found[i] = false;
	/* "address type name [module]": no sscanf, kallsyms is long. */
	while (left && fgets(line, sizeof(line), in)) {
		sym = strchr(line, ' ');
		sym = sym ? strchr(sym + 1, ' ') : NULL;
		if (!sym)
			continue;
		sym++;
		for (i = 0; i < n; i++) {
			size_t len = strlen(names[i]);

			if (!found[i] && !strncmp(sym, names[i], len) &&
			    strchr(" \t\n", sym[len])) {
				found[i] = true;
				left--;
			}
		}
	}
}

bool ksyms_has(FILE *in, const char *name)
{
	bool found;

	ksyms_find(in, &name, &found, 1);
	return found;
}
