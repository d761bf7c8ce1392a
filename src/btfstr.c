// SPDX-License-Identifier: GPL-2.0
/* Names in a BTF string section, found without parsing the types. */
#include <string.h>
#include "probe.h"

void tt_btf_find_strings(const char *strs, size_t len,
			 const char *const *names, bool *found, int n)
{
	const char *p = strs, *end = strs + len;
	size_t name_len[n];
	int i, left = n;

	for (i = 0; i < n; i++) {
		name_len[i] = strlen(names[i]);
		found[i] = false;
	}
	/* NUL-separated strings: one pass, however many names are asked. */
	while (p < end && left) {
		size_t l = strnlen(p, end - p);

		for (i = 0; i < n; i++)
			if (!found[i] && l == name_len[i] && p + l < end &&
			    !memcmp(p, names[i], l)) {
				found[i] = true;
				left--;
			}
		p += l + 1;
	}
}
