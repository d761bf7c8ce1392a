#!/bin/bash
# A module's own user accesses on every backend (kernel/series 3/0014: on
# UAI the accessors go through the untagged pointer, so the base register
# the compiler chose does not matter), on the guest kernel (it has
# CONFIG_MODULES) with the test modules of tests/kernel/modules/ (make
# modules-rig):
# - host side, as objdump shows them: ua_rbp and ua_rbp_nountag (the same
#   source with the untag taken out of its copy of the accessors) read the
#   user's int twice: in assembly through %rbp (of the pointer
#   uaccess_untag_ptr() gives, or of the caller's), and with the kernel's
#   unsafe_get_user() in a function where GCC keeps the pointer in %rbp:
#   without the untag GCC reads through %rbp, an SS reference; with it,
#   through the register the AND leaves the untagged pointer in;
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

# read_insn KO FN: the instruction of FN in KO that reads the user's int
# (a 32-bit load from memory that is not %rip-relative), as objdump shows it.
read_insn()
{
	objdump -d --no-show-raw-insn "$1" | awk -v fn="$2" '
		$0 ~ "^[0-9a-f]+ <" fn ">:" { f = 1; next }
		/^[0-9a-f]+ </ { f = 0 }
		f && /mov +(0x0)?\(%r[a-z0-9]+\),%e/ && !/%rip/ {
			sub(/^ *[0-9a-f]+:[ \t]*/, ""); print; exit }'
}
for m in ua_rbp ua_rbp_nountag; do
	insn=$(read_insn "$mods/$m.ko" ua_rbp_asm_get)
	case $insn in *'(%rbp)'*) r=0 ;; *) r=1 ;; esac
	ok $r "$m: ua_rbp_asm_get() reads through %rbp (${insn:-not found})"
done
insn=$(read_insn "$mods/ua_rbp_nountag.ko" ua_rbp_get)
case $insn in *'(%rbp)'*) r=0 ;; *) r=1 ;; esac
ok $r "ua_rbp_nountag: GCC bases unsafe_get_user() on %rbp, an SS reference (${insn:-not found})"
insn=$(read_insn "$mods/ua_rbp.ko" ua_rbp_get)
ok "$([ -n "$insn" ]; echo $?)" "ua_rbp: with the untag, unsafe_get_user() reads through the register the AND leaves the pointer in (${insn:-not found})"

guest=tests/kernel/module-guest.sh
tap_guest --kernel "$kernel" --cpu uai --append mitigations=off -- "$guest" uai
tap_guest --kernel "$kernel" --cpu uai --la57 --append mitigations=off -- "$guest" uai
tap_guest --kernel "$kernel" --cpu uai -- "$guest" off
tap_guest --kernel "$kernel" --cpu lam -- "$guest" lam
tap_guest --kernel "$kernel" --cpu lam --no-lass --append mitigations=off -- "$guest" lam
tap_guest --kernel "$kernel" --cpu lam --no-lass -- "$guest" off
tap_guest --kernel "$kernel" -- "$guest" off

tap_done
