// SPDX-License-Identifier: GPL-2.0
/* ua_rbp_nountag: ua_rbp_get.c with the untag taken out. */
#define UA_BREAK_UNTAG
#include "ua_rbp_get.c"
