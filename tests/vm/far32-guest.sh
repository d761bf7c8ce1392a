#!/bin/sh
# far32-guest.sh on|off FAR32: in the guest, check that the kernel uses
# SMAP (on) or not (off, booted with clearcpuid=smap), then run FAR32 (far32.c).
want=$1
if grep -qw smap /proc/cpuinfo; then have=on; else have=off; fi
if [ "$have" = "$want" ]; then
	echo "ok - SMAP $want in the guest"
else
	echo "not ok - SMAP $want in the guest (it is $have)"
fi
exec "$2"
