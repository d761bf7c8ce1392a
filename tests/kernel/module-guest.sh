#!/bin/bash
# In the guest (tests/kernel/test-module.sh): load the test modules of
# tests/kernel/modules/ and write ints through their user accesses, in
# TAP.
#
#   module-guest.sh uai   UAI is offered: ua_rbp reads a tagged pointer
#                         (its accessors untag it; one of its reads is
#                         through %rbp); ua_rbp_nountag, whose accessors
#                         do not untag, gets a kernel #SS at its %rbp
#                         read: EFAULT, a gp event each time, and the log
#                         names the access once
#   module-guest.sh lam   LAM is offered: both read a tagged pointer
#   module-guest.sh off   tagging is not offered: untagged pointers only
#
# Then, in every mode, ua_ds reads an int through its own
# user_access_begin(); where tagging is offered, also through a tagged
# pointer, with the tagged_addr_untag event off (the module's hook is a
# NOP) and on (the event names the module's function as the caller).
. tests/lib/guest-tap.sh
mode=$1
dir=build/vm/modules
. tests/lib/guest-ok.sh
T=/sys/kernel/tracing

case $mode in
uai|lam|off) ;;
*) echo "usage: $0 uai|lam|off" >&2; exit 2 ;;
esac

# chk STATUS DESCRIPTION OUTPUT: ok, and OUTPUT (what failed) below it.
chk()
{
	ok "$1" "$2"
	[ -z "$3" ] || printf '%s\n' "$3" | sed 's/^/  /'
}

# load MOD: insmod MOD, and say how it went.
load()
{
	local err

	err=$(insmod "$dir/$1.ko" 2>&1)
	ok $? "$1: loads"
	[ -z "$err" ] || printf '%s\n' "$err" | sed 's/^/  /'
}

# write MOD VALUE [TAG]: VALUE through /proc/MOD (a tagged pointer if TAG
# is given), then read back; prints ua_write's error, if any.
write()
{
	build/vm/ua_write "/proc/$1" "${@:2}" 2>&1 && [ "$(cat "/proc/$1")" = "$2" ]
}

load ua_rbp
load ua_rbp_nountag
out=$(write ua_rbp 7)
chk $? "ua_rbp: an int written through an untagged pointer arrives" "$out"
out=$(write ua_rbp_nountag 8)
chk $? "ua_rbp_nountag: an int written through an untagged pointer arrives" "$out"
case $mode in
uai)
	out=$(write ua_rbp 42 0x2a)
	chk $? "ua_rbp: through a tagged pointer (its reads, one through %rbp, take the untagged pointer)" "$out"
	G=$T/events/tagged_addr/tagged_addr_gp
	dmesg -C
	echo > $T/trace
	echo 1 > $G/enable
	out1=$(write ua_rbp_nountag 43 0x2a)
	r1=$?
	out2=$(write ua_rbp_nountag 44 0x2a)
	r2=$?
	echo 0 > $G/enable
	printf '%s\n' "$out1" "$out2" | sed '/^$/d; s/^/  /'
	case $r1$r2$out1$out2 in
	11*"Bad address"*"Bad address"*) r=0 ;;
	*) r=1 ;;
	esac
	ok $r "ua_rbp_nountag: without the untag, two writes through a tagged pointer fail with EFAULT"
	[ "$(cat /proc/ua_rbp_nountag)" = 8 ]
	ok $? "ua_rbp_nountag: neither changed the last int (8)"
	ev=$(grep 'tagged_addr_gp:' $T/trace)
	printf '%s\n' "$ev" | sed '/^$/d; s/^/  /'
	nev=$(printf '%s\n' "$ev" | grep -c 'address=0x54[0-9a-f]\{14\} mode=uai trap=ss$')
	ok $((nev != 2)) "ua_rbp_nountag: the gp event reports each kernel #SS with the tagged address ($nev of 2)"
	log=$(dmesg)
	printf '%s\n' "$log" | sed '/^$/d; s/^/  /'
	nlog=$(printf '%s\n' "$log" | grep -c 'x86/mm: user access at ua_rbp_get+0x[0-9a-f]*/0x[0-9a-f]* \[ua_rbp_nountag\] goes through SS')
	ok $((nlog != 1)) "ua_rbp_nountag: the log names the access once for both ($nlog times)"
	;;
lam)
	out=$(write ua_rbp 42 0x2a)
	chk $? "ua_rbp: through a tagged pointer" "$out"
	out=$(write ua_rbp_nountag 43 0x2a)
	chk $? "ua_rbp_nountag: through a tagged pointer (LAM masks the tag through SS too)" "$out"
	;;
esac
rmmod ua_rbp
ok $? "ua_rbp: unloads"
rmmod ua_rbp_nountag
ok $? "ua_rbp_nountag: unloads"

insmod $dir/ua_ds.ko
ok $? "ua_ds: loads"
out=$(write ua_ds 7)
chk $? "ua_ds: an int written through an untagged pointer arrives" "$out"
if [ "$mode" != off ]; then
	E=$T/events/tagged_addr/tagged_addr_untag
	echo > $T/trace
	echo 1 > $E/enable
	out=$(write ua_ds 42 0x2a)
	chk $? "ua_ds: through a tagged pointer, untag event on" "$out"
	echo 0 > $E/enable
	ev=$(grep 'tagged_addr_untag:.*tagged=0x54' $T/trace)
	printf '%s\n' "$ev" | sed '/^$/d; s/^/  /'
	case $ev in *"caller=ua_ds_get+0x"*"[ua_ds]"*) r=0 ;; *) r=1 ;; esac
	ok $r "ua_ds: the untag event names the module's ua_ds_get() as the caller"
	echo > $T/trace
	out=$(write ua_ds 43 0x2a)
	chk $? "ua_ds: through a tagged pointer, untag event off" "$out"
	! grep -q 'tagged_addr_untag:' $T/trace
	ok $? "ua_ds: no untag event once it is off"
fi
rmmod ua_ds
ok $? "ua_ds: unloads"

tap_done
