#!/bin/bash
# A module's own user accesses on every backend (kernel/series 3/0010: on
# UAI the accessors go through the untagged pointer, so the base register
# the compiler chose does not matter), on the guest kernel (it has
# CONFIG_MODULES) with the test modules of tests/kernel/modules/ (make
# modules-rig):
# - host side: the unsafe_get_user() of ua_rbp, and of ua_rbp_nountag
#   (the same source with the untag taken out of its copy of the
#   accessor), reads through %rbp, an SS reference, as objdump shows it;
# - every module loads on every CPU and policy;
# - where UAI is offered (--cpu uai, mitigations=off; 4- and 5-level
#   paging), an int written to /proc/ua_rbp through a tagged pointer
#   arrives; through ua_rbp_nountag the same write is a kernel #SS: it
#   fails with EFAULT each time, the tagged_addr_gp event reports each
#   (trap=ss, the tagged address), and the log names the access once;
# - where LAM is offered (with and without LASS), both arrive tagged: LAM
#   masks the tag in every segment;
# - where tagging is not offered (UAI with mitigations on, LAM without
#   LASS with mitigations on, no tagging), both arrive untagged;
# - everywhere, an int written to /proc/ua_ds reaches ua_ds through its
#   own user_access_begin(); where tagging is offered also through a
#   tagged pointer, and the module's untag hook, a NOP while the
#   tagged_addr_untag event is off, reports the module's function as the
#   caller while it is on (tests/kernel/module-guest.sh, ua_write.c).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=build/linux/arch/x86/boot/bzImage
mods=build/vm/modules
need_built "run 'make kernel modules-rig'" "$kernel" "$mods/ua_rbp.ko" \
	"$mods/ua_rbp_nountag.ko" "$mods/ua_ds.ko"

# rbp_read KO: the user-access read of KO's ua_rbp_get() as objdump shows
# it, if it is based on %rbp.
rbp_read()
{
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <ua_rbp_get>:/ { f = 1; next }
		/^[0-9a-f]+ </ { f = 0 }
		f && /mov +(0x0)?\(%rbp\),%e/ { sub(/^ *[0-9a-f]+:[ \t]*/, ""); print; exit }'
}
for m in ua_rbp ua_rbp_nountag; do
	insn=$(rbp_read "$mods/$m.ko")
	ok "$([ -n "$insn" ]; echo $?)" "$m: ua_rbp_get() reads the user's int through %rbp (${insn:-not found})"
done

guest=tests/kernel/module-guest.sh
tap_guest --kernel "$kernel" --cpu uai --append mitigations=off -- "$guest" uai
tap_guest --kernel "$kernel" --cpu uai --la57 --append mitigations=off -- "$guest" uai
tap_guest --kernel "$kernel" --cpu uai -- "$guest" off
tap_guest --kernel "$kernel" --cpu lam -- "$guest" lam
tap_guest --kernel "$kernel" --cpu lam --no-lass --append mitigations=off -- "$guest" lam
tap_guest --kernel "$kernel" --cpu lam --no-lass -- "$guest" off
tap_guest --kernel "$kernel" -- "$guest" off

tap_done
