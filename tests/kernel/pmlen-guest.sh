#!/bin/sh
# Guest side of tests/kernel/test-pmlen.sh on x86: build/vm/pmlen GRANTS
# (its own TAP) with the tagged_addr_ctrl event on, then the event's
# req_bits for RISC-V's form. pmlen enables with PR_PMLEN n for every n
# from 1 to 16 and 127 (with an offset pointer, which x86 requires for a
# size in the field), and again with each grant's own size without one
# (EINVAL: bit 63 is no tag, as the field would have it): each is one
# prctl enable event with req_bits=n, granted or not. Its PR_PMLEN 4 together with nr_bits is refused by the
# generic prctl before the architecture's handler, which the event is in:
# no event. PR_PMLEN 0 asks for no size, as a NULL nr_bits does:
# req_bits=-1, in pmlen's two such enables.
#   pmlen-guest.sh BITS@SHIFT[,BITS@SHIFT]
. tests/lib/guest-tap.sh
T=/sys/kernel/tracing
E=$T/events/tagged_addr/tagged_addr_ctrl
trace=/tmp/pmlen-trace.txt

if [ ! -d "$E" ]; then
	echo "not ok - $E exists (kernel without the tagged_addr tracepoints)"
	exit 1
fi
echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $E/enable
echo 1 > $T/tracing_on
build/vm/pmlen "$1" || echo "not ok - build/vm/pmlen exited $?"
echo 0 > $T/tracing_on
echo 0 > $E/enable
cat $T/trace > $trace

sizes=$(echo "$1" | tr ',' '\n' | cut -d@ -f1)

# enables N: prctl enable events asking for N bits
enables()
{
	grep -c "interface=prctl op=enable req_bits=$1 " $trace
}

if grep -q "LOST EVENTS" $trace; then
	echo "not ok - tracefs lost no events"
else
	echo "ok - tracefs lost no events"
fi
for n in $(seq 1 16) 127; do
	case " $(echo $sizes) " in
	*" $n "*) want=2 ;;
	*) want=1 ;;
	esac
	got=$(enables $n)
	if [ "$got" = $want ]; then
		echo "ok - tagged_addr_ctrl: PR_PMLEN $n is $want enable event(s) with req_bits=$n"
	else
		echo "not ok - tagged_addr_ctrl: PR_PMLEN $n is $want enable event(s) with req_bits=$n (got $got)"
	fi
done
got=$(enables -1)
if [ "$got" = 2 ]; then
	echo "ok - tagged_addr_ctrl: PR_PMLEN 0 and the three-argument enable ask for no size (req_bits=-1, 2 events)"
else
	echo "not ok - tagged_addr_ctrl: PR_PMLEN 0 and the three-argument enable ask for no size (req_bits=-1: got $got, want 2)"
fi
