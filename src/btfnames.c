// SPDX-License-Identifier: GPL-2.0
/*
 * Names in a BTF, each looked up as the kind it must be: a tracepoint is
 * its btf_trace_* typedef, a function a FUNC, a per-CPU variable a VAR. A
 * bare string in the string section proves nothing: a member, a parameter
 * or another kind of type may carry the same name.
 */
#include <stdio.h>
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

int tt_btf_tp_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || !btf_vlen(t))
		return -1;
	return btf_vlen(t) - 1;	/* after the void *data */
}

bool tt_btf_has_member(const struct btf *btf, const char *type,
		       const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	const char *name;
	int id, i;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF);
	if (id <= 0)
		id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id > 0)
		id = btf__resolve_type(btf, id);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || !btf_is_struct(t))
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		if (name && !strcmp(name, member))
			return true;
	}
	return false;
}
