// SPDX-License-Identifier: GPL-2.0
/*
 * Names in a BTF, each looked up as the kind it must be: a tracepoint is
 * its btf_trace_* typedef, a function a FUNC, a per-CPU variable a VAR. A
 * bare string in the string section proves nothing: a member, a parameter
 * or another kind of type may carry the same name.
 */
#include <bpf/btf.h>
#include "probe.h"

void tt_btf_find(const struct btf *btf, const struct tt_btf_name *names,
		 bool *found, int n)
{
	int i;

	for (i = 0; i < n; i++)
		found[i] = btf &&
			   btf__find_by_name_kind(btf, names[i].name,
						  names[i].kind) > 0;
}
