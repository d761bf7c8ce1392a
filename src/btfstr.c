// SPDX-License-Identifier: GPL-2.0
/* Names in a BTF blob's string section, found without parsing its types. */
#include <string.h>
#include <linux/btf.h>
#include "probe.h"

bool tt_btf_has_string(const void *btf, size_t size, const char *name)
{
	const struct btf_header *h = btf;
	const char *str, *p, *end;
	size_t len = strlen(name);

	if (size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    h->hdr_len > size || h->str_off > size - h->hdr_len ||
	    h->str_len > size - h->hdr_len - h->str_off)
		return false;
	str = (const char *)btf + h->hdr_len + h->str_off;
	end = str + h->str_len;
	/* Strings are NUL-separated and the section starts with "". */
	for (p = str; p < end; p += strnlen(p, end - p) + 1)
		if ((size_t)(end - p) > len && !memcmp(p, name, len + 1))
			return true;
	return false;
}
