#!/bin/bash
# A module's user accesses, checked when it is loaded (kernel/series:
# "x86/module: Refuse a module with user accesses UAI does not untag"),
# on the guest kernel (it has CONFIG_MODULES) with the test
# modules of tests/kernel/modules/ (make modules-rig):
# - where UAI is offered (--cpu uai, mitigations=off), a module with a
#   user access through SS (ua_ss: %rbp and %rsp), GS or FS (ua_gs) is refused
#   with ENOEXEC, and the log names each access at the section and offset
#   objdump shows for it; a module whose user accesses UAI untags (ua_ds)
#   loads;
# - where UAI is not offered (UAI with mitigations on or clearcpuid=uai,
#   LAM with or without LASS, no tagging), every module loads;
# - everywhere, an int written to /proc/ua_ds reaches ua_ds through its
#   own user_access_begin(); where tagging is offered (UAI and LAM), also
#   through a tagged pointer, and the module's untag hook, a NOP while the
#   tagged_addr_untag event is off, reports the module's function as the
#   caller while it is on (tests/kernel/module-guest.sh, ua_write.c);
# - a user access through SS that the loader cannot see (ua_ss_alt: its
#   exception table entry is on an alternative whose original reads
#   through DS, patched to a %rbp read where UAI is offered) loads
#   everywhere; where UAI is offered, two writes through a tagged pointer
#   there are kernel #SSs: each fails with EFAULT and is a tagged_addr_gp
#   event (trap=ss), and the log names the access once for both.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

kernel=build/linux/arch/x86/boot/bzImage
mods=build/vm/modules
need_built "run 'make kernel modules-rig'" "$kernel" "$mods/ua_ss.ko" "$mods/ua_gs.ko" "$mods/ua_ds.ko" \
	"$mods/ua_ss_alt.ko"

# site KO INSN: SECTION+0xOFFSET of the first instruction objdump shows
# as INSN (its mnemonic and operands) in KO, as the kernel names it.
site()
{
	objdump -d --no-show-raw-insn "$1" | awk -v insn="$2" '
		/^Disassembly of section / { sec = $4; sub(/:$/, "", sec) }
		/^ *[0-9a-f]+:/ {
			line = $0; sub(/^ *[0-9a-f]+:[ \t]*/, "", line)
			gsub(/[ \t]+/, " ", line)
			if (line == insn) {
				off = $1; sub(/:$/, "", off)
				printf "%s+0x%s\n", sec, off; exit
			}
		}'
}

rbp=$(site "$mods/ua_ss.ko" "mov 0x0(%rbp),%al")
rsp=$(site "$mods/ua_ss.ko" "mov 0x8(%rsp),%al")
gs=$(site "$mods/ua_gs.ko" "mov %gs:(%rax),%al")
fs=$(site "$mods/ua_gs.ko" "mov %fs:(%rax),%al")
for s in "$rbp" "$rsp" "$gs" "$fs"; do
	case $s in
	.*+0x*) ok 0 "objdump finds the site $s" ;;
	*) ok 1 "objdump finds the test modules' four sites" \
		"rbp '$rbp' rsp '$rsp' gs '$gs' fs '$fs'" ;;
	esac
done

guest=tests/kernel/module-guest.sh
tap_guest --kernel "$kernel" --cpu uai --append mitigations=off -- \
	"$guest" refuse "$rbp" "$rsp" "$gs" "$fs"
tap_guest --kernel "$kernel" --cpu uai --la57 --append mitigations=off -- \
	"$guest" refuse "$rbp" "$rsp" "$gs" "$fs"
tap_guest --kernel "$kernel" --cpu uai -- "$guest" load
# The way the documentation gives to load such a module on a UAI machine.
tap_guest --kernel "$kernel" --cpu uai --append "mitigations=off clearcpuid=uai" -- \
	"$guest" load
tap_guest --kernel "$kernel" --cpu lam -- "$guest" load tagged
tap_guest --kernel "$kernel" --cpu lam --no-lass --append mitigations=off -- "$guest" load tagged
tap_guest --kernel "$kernel" -- "$guest" load

tap_done
