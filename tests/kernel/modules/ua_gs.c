// SPDX-License-Identifier: GPL-2.0
/* User accesses through overrides: GS in .init.text, FS in .text. */
#include "ua.h"

MODULE_DESCRIPTION("tagtrace test: user accesses through GS and FS");

static int __init __used ua_gs_site(void)
{
	UA_SITE("movb %%gs:(%%rax), %%al");
	return 0;
}

static noinline __used void ua_fs_site(void)
{
	UA_SITE("movb %%fs:(%%rax), %%al");
}
