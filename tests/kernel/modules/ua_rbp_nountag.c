// SPDX-License-Identifier: GPL-2.0
/* ua_rbp with the untag of its unsafe_get_user() taken out. */
#define UA_BREAK_UNTAG
#include "ua_rbp.c"
