// SPDX-License-Identifier: GPL-2.0
/* Two user accesses through SS: one based on %rbp, one on %rsp. */
#include "ua.h"

MODULE_DESCRIPTION("tagtrace test: user accesses through SS");

static noinline __used void ua_ss_sites(void)
{
	UA_SITE("movb (%%rbp), %%al");
	UA_SITE("movb 8(%%rsp), %%al");
}
