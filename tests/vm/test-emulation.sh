#!/bin/bash
# The patched QEMU emulates LAM and UAI: CPUID bits per --cpu, tagged
# dereferences working under LAM (4- and 5-level paging) and faulting
# without it, and the kernel's own LAM selftest (which skips on a kernel
# that refuses LAM: --no-lass with mitigations on); the address paths that
# are not plain loads and stores (a tagged RSP through PUSH, CALL, PUSHF,
# far CALL/RET and IRET with 64- and 32-bit operands, gathers with tagged
# elements, data breakpoints, CS/DS/ES/SS prefixes, which 64-bit mode
# ignores)
# under LAM and UAI, each with 4- and 5-level paging (tests/vm/emul-paths.c);
# the LASS rules from a freestanding guest (tests/vm/lass/): on LAM with
# LASS, and the same probes on LAM without LASS and on a CPU with neither,
# where paging, SMAP and SMEP answer and CR4.LASS is a reserved bit;
# cross-modifying code on four vCPUs (tests/vm/xmodify-guest.sh): static
# branches rewritten by text_poke_bp() while the other CPUs run through
# them, which must never leave a CPU running bytes already replaced; and
# translations of a page that another vCPU stores to (tests/vm/codepage.c):
# QEMU's trace of the translations it discards for a store made while they
# read their page (tb_link_page_stale) must name none for stores to other
# 64-byte lines than the code's (the granule QEMU compares at), and some for
# stores to the line of the code's last bytes, on its first or second page,
# or to a page that they leave without code.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

vm=build/vm
tap_guest --cpu none -- $vm/tagged-deref none
tap_guest $(offer uai) -- $vm/tagged-deref uai
tap_guest --cpu lam -- sh -c "$vm/tagged-deref lam && tests/vm/lam-selftest.sh $vm/lam"
tap_guest --cpu lam --no-lass --append mitigations=off -- $vm/tagged-deref lam no-lass
tap_guest --cpu lam --no-lass -- tests/vm/lam-refused.sh $vm/lam
tap_guest --cpu lam --la57 -- sh -c "$vm/tagged-deref lam && tests/vm/lam-selftest.sh $vm/lam"
tap_guest --cpu lam -- $vm/emul-paths lam
tap_guest --cpu lam --la57 -- $vm/emul-paths lam
tap_guest $(offer uai) -- $vm/emul-paths uai
tap_guest $(offer uai) --la57 -- $vm/emul-paths uai
tap_guest --cpu lam --bare $vm/lass.elf
tap_guest --cpu lam --no-lass --bare $vm/lass.elf
tap_guest --cpu none --bare $vm/lass.elf
tap_guest --cpu lam --smp 4 -- tests/vm/xmodify-guest.sh ${XMODIFY_SECONDS:-60}

# The rig's QEMU (or TAGTRACE_QEMU's), tracing discarded translations.
xdir=$(mktemp -d)
trap 'rm -rf "$xdir"' EXIT
cat > "$xdir/qemu" << EOF
#!/bin/sh
exec "${TAGTRACE_QEMU:-$top/build/qemu-src/build/qemu-system-x86_64}" \
	-d trace:tb_link_page_stale -D "$xdir/stale.log" "\$@"
EOF
chmod +x "$xdir/qemu"
# discarded PHASE: translations of PHASE's page that QEMU discarded in the
# last boot.
discarded()
{
	local page

	page=$(sed -n "s/^# page $1 0x\([0-9a-f]*\)000$/\1/p" "$xdir/out")
	[ -n "$page" ] || { echo "no page"; return; }
	grep -c "tb_link_page_stale pc:0x$page[0-9a-f]\{3\} " "$xdir/stale.log" || true
}
# Where the stores touch no line of the code, none; where they touch one
# (near, span's second page) or leave the page without code (bare), some.
# codepage makes each phase go on until 300 of its calls ran while the
# writer stored; whether a store then lands while a translation reads its
# page is still up to the host's scheduling of the two vCPU threads, so a
# phase with none discarded boots again, alone, until it has some: at most
# 3 boots, a limit that only ends a test that would not.
todo="near bare span" boots=0
declare -A some=()
while [ -n "$todo" ] && [ $boots -lt 3 ]; do
	boots=$((boots + 1))
	phases=
	[ $boots = 1 ] || phases=$todo
	rm -f "$xdir/stale.log"
	TAGTRACE_QEMU=$xdir/qemu TAP_GUEST_KEEP=$xdir/out \
		tap_guest --smp 2 -- $vm/codepage 6000 $phases
	if [ $boots = 1 ]; then
		for ph in far beside; do
			is "$(discarded $ph)" 0 "codepage $ph: no translation discarded for stores to other lines"
		done
	fi
	left=
	for ph in $todo; do
		n=$(discarded $ph)
		if [ "$n" != "no page" ] && [ "${n:-0}" -gt 0 ]; then
			some[$ph]="$n in boot $boots"
		else
			left+="${left:+ }$ph"
			echo "# codepage $ph: ${n:-0} translations discarded in boot $boots"
		fi
	done
	todo=$left
done
for ph in near bare span; do
	[ -n "${some[$ph]:-}" ]
	ok $? "codepage $ph: translations discarded for stores to a line of their code or a page left without code (${some[$ph]:-none in $boots boots})"
done

tap_done
