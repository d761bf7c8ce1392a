/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by ua_rbp_main.c and ua_rbp_get.c (the test module ua_rbp),
 * included after <linux/uaccess.h>.
 */
extern const int __user *ua_rbp_ptr;
void ua_rbp_call(void);
long ua_rbp_get(void);

/* UA_BREAK_UNTAG: the accessors of this file keep the caller's tag. */
#ifdef UA_BREAK_UNTAG
#undef uaccess_untag_ptr
#define uaccess_untag_ptr(ptr) (ptr)
#endif
