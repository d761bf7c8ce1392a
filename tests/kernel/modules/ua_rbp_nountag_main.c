// SPDX-License-Identifier: GPL-2.0
/* ua_rbp_nountag: ua_rbp with the untag taken out of its accessors. */
#define UA_BREAK_UNTAG
#include "ua_rbp_main.c"
