// SPDX-License-Identifier: GPL-2.0
/*
 * May this process trace? Asked of the capabilities, not the user id: a
 * service may run tagtrace as its own user with CAP_BPF and CAP_PERFMON.
 * capget() directly: libcap is not worth a dependency for one call.
 */
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "caps.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

__u64 tt_caps_effective(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return data[0].effective | (__u64)data[1].effective << 32;
}

bool tt_caps_enough(__u64 effective)
{
	__u64 both = 1ULL << CAP_BPF | 1ULL << CAP_PERFMON;

	return (effective & both) == both ||
	       (effective & 1ULL << CAP_SYS_ADMIN);
}
