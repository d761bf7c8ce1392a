#!/bin/bash
# A kernel that can never offer tagging patches no untag in at all
# (tagged_addr_init(): X86_FEATURE_TAGGED_ADDR, which untagged_addr()'s
# alternative follows, and X86_FEATURE_UNTAG_UACCESS, the untag before
# each user-limit check, are forced only where tagging can be offered).
# The first byte of every untag site, read from the running kernel's text
# by bpftrace (tests/kernel/untag_sites.py lists them from vmlinux's
# .altinstructions; tests/kernel/untag-sites-guest.sh reads them):
#   LAM with LASS (offered), Intel CPU  untagged_addr() in, no user-limit
#                                       untag (LAM raises the limit)
#   LAM with LASS (offered), the rig's  both in (the limit is raised on
#   CPU, which says AuthenticAMD        Intel's CPUs only)
#   UAI with mitigations=off (offered)  both in
#   LAM without LASS, mitigations on    neither (refused)
#   UAI with mitigations on             neither (refused)
#   neither LAM nor UAI                 neither
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

need_built "make kernel" build/linux/vmlinux build/linux/arch/x86/include/asm/cpufeatures.h

# feature NAME: X86_FEATURE_NAME's number, from the kernel's own header
feature()
{
	local word bit
	read -r word bit < <(sed -n "s/^#define X86_FEATURE_$1[ \t]*( *\([0-9]*\) *\* *32 *+ *\([0-9]*\) *).*/\1 \2/p" \
		build/linux/arch/x86/include/asm/cpufeatures.h)
	[ -n "$word" ] && echo $((word * 32 + bit))
}
tagged=$(feature TAGGED_ADDR)
untag=$(feature UNTAG_UACCESS)
ok "$([ -n "$tagged" ] && [ -n "$untag" ]; echo $?)" \
	"cpufeatures.h defines X86_FEATURE_TAGGED_ADDR ($tagged) and X86_FEATURE_UNTAG_UACCESS ($untag)"

bt=build/vm/untag-sites.bt
counts=$(python3 tests/kernel/untag_sites.py build/linux/vmlinux "$tagged" "$untag" \
	2>&1 > "$bt")
ok $? "untag_sites.py listed the sites" "$counts"
read -r _ _ n_tagged gs_tagged < <(grep "^# $tagged " <<< "$counts")
read -r _ _ n_untag gs_untag < <(grep "^# $untag " <<< "$counts")
ok "$([ "${n_tagged:-0}" -gt 0 ] && [ "${n_untag:-0}" -gt 0 ]; echo $?)" \
	"vmlinux has untag sites of both features ($n_tagged untagged_addr(), $n_untag user-limit)"
ok "$([ "$gs_tagged" = "$n_tagged" ] && [ "$gs_untag" = "$n_untag" ]; echo $?)" \
	"every replacement is a %gs-relative and ($gs_tagged of $n_tagged, $gs_untag of $n_untag)"

tap_guest --cpu lam --intel -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:patched" "$untag:$n_untag:nop"
tap_guest --cpu lam -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:patched" "$untag:$n_untag:patched"
# shellcheck disable=SC2046
tap_guest $(offer uai) -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:patched" "$untag:$n_untag:patched"
tap_guest --cpu lam --no-lass -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:nop" "$untag:$n_untag:nop"
tap_guest --cpu uai -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:nop" "$untag:$n_untag:nop"
tap_guest --cpu none -- tests/kernel/untag-sites-guest.sh "$bt" \
	"$tagged:$n_tagged:nop" "$untag:$n_untag:nop"
tap_done
