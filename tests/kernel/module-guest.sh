#!/bin/bash
# In the guest (tests/kernel/test-module.sh): load the test modules of
# tests/kernel/modules/ and check the kernel's answer, in TAP.
#
#   module-guest.sh refuse SS-RBP SS-RSP GS FS   UAI is offered: ua_ss
#       and ua_gs are refused with ENOEXEC, and the log names each user
#       access through SS, GS or FS at the SECTION+OFFSET given (objdump's)
#   module-guest.sh load [tagged]             every module loads, and the
#       log names no access; tagged: tagging is offered (LAM)
#
# Then, in every mode, ua_ds loads, and an int written to /proc/ua_ds
# reaches it through its own user_access_begin(). Where tagging is
# offered (refuse, load tagged), also through a tagged pointer, with the
# tagged_addr_untag event off (the module's hook is a NOP) and on (the
# event names the module's function as the caller). And ua_ss_alt, whose
# user access goes through SS where UAI is offered: there a tagged pointer
# is a kernel #SS, EFAULT, a gp event each time and one log line.
. tests/lib/guest-tap.sh
mode=$1
dir=build/vm/modules
. tests/lib/guest-ok.sh

# load MOD [keep]: insmod MOD; $rc, $err, $log (the lines it added to the
# kernel log) and $present (1 if it is in /proc/modules) for the checks;
# unload it again if it loaded, unless keep.
load()
{
	dmesg -C
	err=$(insmod "$dir/$1.ko" 2>&1)
	rc=$?
	log=$(dmesg)
	printf '%s\n' "$err" "$log" | sed '/^$/d; s/^/  /'
	present=0
	if grep -q "^$1 " /proc/modules; then
		present=1
		[ -n "${2:-}" ] || rmmod "$1"
	fi
}

# has TEXT: whether the kernel log lines of the last load hold TEXT.
has()
{
	case $log$'\n' in *"$1"*) return 0 ;; esac
	return 1
}

case $mode in
refuse)
	[ $# -eq 5 ] || { echo "usage: $0 refuse SS-RBP SS-RSP GS FS" >&2; exit 2; }
	load ua_ss
	ok $((rc == 0)) "ua_ss (SS through %rbp and %rsp): insmod fails"
	case $err in *"Invalid module format"*) r=0 ;; *) r=1 ;; esac
	ok $r "ua_ss: with ENOEXEC (Invalid module format)"
	ok $present "ua_ss: not in /proc/modules"
	has "ua_ss: user access through %rbp (SS) at $2"$'\n'
	ok $? "ua_ss: the log names the %rbp access at $2"
	has "ua_ss: user access through %rsp (SS) at $3"$'\n'
	ok $? "ua_ss: the log names the %rsp access at $3"
	has "ua_ss: not loaded while UAI is offered: user accesses through SS, FS or GS, which UAI does not untag, or not decoded: 2"$'\n'
	ok $? "ua_ss: the log says why, and counts 2"

	load ua_gs
	ok $((rc == 0)) "ua_gs (GS in .init.text, FS in .text): insmod fails"
	case $err in *"Invalid module format"*) r=0 ;; *) r=1 ;; esac
	ok $r "ua_gs: with ENOEXEC (Invalid module format)"
	has "ua_gs: user access through %gs at $4"$'\n'
	ok $? "ua_gs: the log names the %gs access at $4"
	has "ua_gs: user access through %fs at $5"$'\n'
	ok $? "ua_gs: the log names the %fs access at $5"
	has "ua_gs: not loaded while UAI is offered: user accesses through SS, FS or GS, which UAI does not untag, or not decoded: 2"$'\n'
	ok $? "ua_gs: the log says why, and counts 2"
	ok $present "ua_gs: not in /proc/modules"
	;;
load)
	for m in ua_ss ua_gs; do
		load $m
		ok $rc "$m: loads where UAI is not offered"
		! has "user access through"
		ok $? "$m: the log names no access"
	done
	;;
*)
	echo "usage: $0 refuse SS-RBP SS-RSP GS FS | load [tagged]" >&2
	exit 2 ;;
esac

# DS-based user accesses, an SS override 64-bit mode ignores, a %rbp
# access whose fixup is not a user access's and unsafe_get_user(): always
# loaded.
load ua_ds keep
ok $rc "ua_ds (user accesses through DS): loads"
! has "user access through"
ok $? "ua_ds: the log names no access"

# write VALUE [TAG]: VALUE through /proc/ua_ds, then read back.
write()
{
	build/vm/ua_write /proc/ua_ds "$@" && [ "$(cat /proc/ua_ds)" = "$1" ]
}

T=/sys/kernel/tracing
E=$T/events/tagged_addr/tagged_addr_untag
write 7
ok $? "ua_ds: an int written through an untagged pointer arrives"
if [ "$mode" = refuse ] || [ "${2:-}" = tagged ]; then
	echo > $T/trace
	echo 1 > $E/enable
	write 42 0x2a
	ok $? "ua_ds: through a tagged pointer, untag event on"
	echo 0 > $E/enable
	ev=$(grep 'tagged_addr_untag:.*tagged=0x54' $T/trace)
	printf '%s\n' "$ev" | sed '/^$/d; s/^/  /'
	case $ev in *"caller=ua_ds_get+0x"*"[ua_ds]"*) r=0 ;; *) r=1 ;; esac
	ok $r "ua_ds: the untag event names the module's ua_ds_get() as the caller"
	echo > $T/trace
	write 43 0x2a
	ok $? "ua_ds: through a tagged pointer, untag event off"
	! grep -q 'tagged_addr_untag:' $T/trace
	ok $? "ua_ds: no untag event once it is off"
fi
rmmod ua_ds
ok $? "ua_ds: unloads"

# ua_ss_alt: a user access that goes through SS where UAI is offered, out
# of the loader's sight (its exception table entry is on an alternative
# whose original instruction reads through DS). Everywhere it loads, and
# an int written through an untagged pointer arrives. Where UAI is offered,
# a tagged pointer there is a kernel #SS: each write fails with EFAULT,
# the tagged_addr_gp event reports each (trap=ss, the tagged address), and
# the log says so once for the two, naming the access. Elsewhere the DS
# read stays, and a tagged pointer arrives where tagging is offered.
load ua_ss_alt keep
ok $rc "ua_ss_alt (an SS access behind an alternative): loads"
alt()
{
	build/vm/ua_write /proc/ua_ss_alt "$@" 2>&1 &&
		[ "$(cat /proc/ua_ss_alt)" = "$1" ]
}
out=$(alt 5)
ok $? "ua_ss_alt: an int written through an untagged pointer arrives"
if [ "$mode" = refuse ]; then
	G=$T/events/tagged_addr/tagged_addr_gp
	dmesg -C
	echo > $T/trace
	echo 1 > $G/enable
	out1=$(alt 6 0x2a)
	r1=$?
	out2=$(alt 7 0x2a)
	r2=$?
	echo 0 > $G/enable
	printf '%s\n' "$out1" "$out2" | sed '/^$/d; s/^/  /'
	case $r1$r2$out1$out2 in
	11*"Bad address"*"Bad address"*) r=0 ;;
	*) r=1 ;;
	esac
	ok $r "ua_ss_alt: two writes through a tagged pointer fail with EFAULT"
	[ "$(cat /proc/ua_ss_alt)" = 5 ]
	ok $? "ua_ss_alt: neither changed the last int (5)"
	ev=$(grep 'tagged_addr_gp:' $T/trace)
	printf '%s\n' "$ev" | sed '/^$/d; s/^/  /'
	nev=$(printf '%s\n' "$ev" | grep -c 'address=0x54[0-9a-f]\{14\} mode=uai trap=ss$')
	ok $((nev != 2)) "ua_ss_alt: the gp event reports each kernel #SS with the tagged address ($nev of 2)"
	log=$(dmesg)
	printf '%s\n' "$log" | sed '/^$/d; s/^/  /'
	nlog=$(printf '%s\n' "$log" | grep -c 'x86/mm: user access at ua_ss_alt_get+0x[0-9a-f]*/0x[0-9a-f]* \[ua_ss_alt\] goes through SS, which UAI does not untag: -EFAULT for tagged pointers$')
	ok $((nlog != 1)) "ua_ss_alt: the log names the access once for both ($nlog times)"
else
	if [ "${2:-}" = tagged ]; then
		out=$(alt 8 0x2a)
		ok $? "ua_ss_alt: through a tagged pointer (DS: UAI is not offered)"
	fi
	log=$(dmesg)
	! has "goes through SS"
	ok $? "ua_ss_alt: the log names no access"
fi
rmmod ua_ss_alt
ok $? "ua_ss_alt: unloads"

tap_done
