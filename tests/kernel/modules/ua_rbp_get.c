// SPDX-License-Identifier: GPL-2.0
/*
 * The user accesses of ua_rbp (and, built with UA_BREAK_UNTAG, of
 * ua_rbp_nountag): compiled with every callee-saved register but %rbp
 * and most others fixed (Kbuild), so that the pointer, which must
 * survive a call, lives in %rbp, an SS base.
 *
 * ua_rbp_get(): the kernel's own user_access_begin() and unsafe_get_user().
 * Without the untag (UA_BREAK_UNTAG takes it out of this file's copy of
 * the accessor) GCC reads through %rbp, an SS reference, which UAI does
 * not untag: a tagged pointer is a kernel #SS, EFAULT. With it, the read
 * goes through the register the untag leaves the pointer in.
 */
#include <linux/uaccess.h>
#include "ua_rbp.h"

noinline long ua_rbp_get(void)
{
	const int __user *p = READ_ONCE(ua_rbp_ptr);
	int val;

	ua_rbp_call();
	if (!user_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(val, p, efault);
	user_access_end();
	return (unsigned int)val;
efault:
	user_access_end();
	return -EFAULT;
}
