// SPDX-License-Identifier: GPL-2.0
/* Names of events, modes and ctrl fields, as the tracepoints print them. */
#include <stdio.h>
#include <string.h>
#include "names.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *tt_comm_text(const char *comm, char *buf)
{
	int i;

	for (i = 0; i < TT_COMM_LEN - 1 && comm[i]; i++)
		buf[i] = comm[i] >= 0x20 && comm[i] < 0x7f ? comm[i] : '?';
	buf[i] = 0;
	return buf;
}

static const char *const event_names[TT_EV_MAX] = {
	[TT_EV_CTRL]	= "ctrl",
	[TT_EV_UNTAG]	= "untag",
	[TT_EV_SWITCH]	= "switch",
	[TT_EV_FAULT]	= "fault",
	[TT_EV_GP]	= "gp",
};

static const char *const mode_names[TT_MODE_MAX] = {
	[TT_MODE_NONE]		= "none",
	[TT_MODE_LAM_U57]	= "lam_u57",
	[TT_MODE_UAI]		= "uai",
	[TT_MODE_LAM_U48]	= "lam_u48",
};

static const char *const if_names[TT_IF_MAX] = {
	[TT_IF_PRCTL]		= "prctl",
	[TT_IF_ARCH_PRCTL]	= "arch_prctl",
	[TT_IF_EXEC]		= "exec",
};

static const char *const op_names[TT_OP_MAX] = {
	[TT_OP_ENABLE]	= "enable",
	[TT_OP_DISABLE]	= "disable",
	[TT_OP_QUERY]	= "query",
	[TT_OP_RESET]	= "reset",
};

/* As the tracepoint prints them, for JSON. */
static const char *const reason_names[TT_REASON_MAX] = {
	[TT_REASON_NONE]		= "none",
	[TT_REASON_NO_BACKEND]		= "no_backend",
	[TT_REASON_SYSCTL]		= "sysctl",
	[TT_REASON_NO_LASS]		= "no_lass_with_mitigations",
	[TT_REASON_UAI_MITIGATIONS]	= "uai_with_mitigations",
	[TT_REASON_UAI_NO_SMAP]		= "uai_without_smap",
};

/* For people: what a refused enable ran into. */
static const char *const reason_texts[TT_REASON_MAX] = {
	[TT_REASON_NO_BACKEND]		= "no LAM or UAI",
	[TT_REASON_SYSCTL]		= "abi.tagged_addr_disabled is set",
	[TT_REASON_NO_LASS]		= "no LASS with mitigations on",
	[TT_REASON_UAI_MITIGATIONS]	= "UAI with mitigations on",
	[TT_REASON_UAI_NO_SMAP]		= "UAI without SMAP",
};

/* The trap numbers of arch/x86/include/asm/trapnr.h. */
static const char *const trap_names[] = {
	[12]	= "ss",
	[13]	= "gp",
};

static const char *const source_names[TT_SRC_MAX] = {
	[TT_SRC_NONE]		= "unavailable",
	[TT_SRC_TP_BTF]		= "tp_btf/tagged_addr",
	[TT_SRC_RAW_TP]		= "raw_tp/tagged_addr",
	[TT_SRC_FEXIT]		= "fexit/do_arch_prctl_64",
	[TT_SRC_KRETPROBE]	= "kretprobe/do_arch_prctl_64",
	[TT_SRC_FENTRY]		= "fentry/switch_mm_irqs_off",
	[TT_SRC_KPROBE]		= "kprobe/switch_mm_irqs_off",
	[TT_SRC_PF_BTF]		= "tp_btf/page_fault_user",
	[TT_SRC_PF_RAW]		= "raw_tp/page_fault_user",
};

static const char *lookup(const char *const *names, size_t n, long i)
{
	return i >= 0 && (size_t)i < n && names[i] ? names[i] : "unknown";
}

const char *tt_event_name(unsigned int kind)
{
	return lookup(event_names, ARRAY_SIZE(event_names), kind);
}

const char *tt_mode_name(int mode)
{
	return lookup(mode_names, ARRAY_SIZE(mode_names), mode);
}

const char *tt_if_name(int interface)
{
	return lookup(if_names, ARRAY_SIZE(if_names), interface);
}

const char *tt_op_name(int op)
{
	return lookup(op_names, ARRAY_SIZE(op_names), op);
}

const char *tt_source_name(unsigned int src)
{
	return lookup(source_names, ARRAY_SIZE(source_names), src);
}

const char *tt_reason_name(int reason)
{
	return lookup(reason_names, ARRAY_SIZE(reason_names), reason);
}

const char *tt_reason_text(int reason)
{
	if (reason < 0 || reason >= TT_REASON_MAX)
		return NULL;
	return reason_texts[reason];
}

static const char *const no_tagging_names[] = {
	[TT_NO_TAGGING_CPU]	= "cpu_without_lam_or_uai",
	[TT_NO_TAGGING_KERNEL]	= "kernel_without_address_masking",
	[TT_NO_TAGGING_SYSCTL]	= "sysctl",
	[TT_NO_TAGGING_POLICY]	= "kernel_policy",
};

static const char *const no_tagging_texts[] = {
	[TT_NO_TAGGING_CPU]	= "the kernel lists neither LAM nor UAI for this CPU (/proc/cpuinfo)",
	[TT_NO_TAGGING_KERNEL]	= "the kernel was built without CONFIG_ADDRESS_MASKING (its BTF has no mm_context_t.untag_mask)",
	[TT_NO_TAGGING_SYSCTL]	= "abi.tagged_addr_disabled is set (ARCH_GET_MAX_TAG_BITS says 0 bits)",
	[TT_NO_TAGGING_POLICY]	= "the kernel refuses it on this CPU (ARCH_GET_MAX_TAG_BITS says 0 bits): with mitigations on it offers LAM only with LASS and UAI not at all, and UAI never without SMAP",
};

const char *tt_no_tagging_name(int why)
{
	return why > 0 && why < TT_NO_TAGGING_MAX ? no_tagging_names[why] :
						     NULL;
}

const char *tt_no_tagging_text(int why)
{
	return why > 0 && why < TT_NO_TAGGING_MAX ? no_tagging_texts[why] :
						     NULL;
}

const char *tt_trap_name(int trapnr)
{
	return lookup(trap_names, ARRAY_SIZE(trap_names), trapnr);
}

int tt_parse_events(const char *list, __u32 *mask, char *bad, size_t badlen)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned int k;

		for (k = 0; k < TT_EV_MAX; k++)
			if (strlen(event_names[k]) == len &&
			    !strncmp(p, event_names[k], len))
				break;
		if (k == TT_EV_MAX) {
			snprintf(bad, badlen, "%.*s", (int)len, p);
			return -1;
		}
		*mask |= 1U << k;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}
