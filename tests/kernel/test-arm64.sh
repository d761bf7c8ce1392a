#!/bin/bash
# The arm64 half of the tagging uABI, booted: the series cross-built for
# QEMU's virt machine (make kernel-arm64) on a TCG "max" CPU with MTE
# (tests/vm/run --arch arm64, on make qemu's qemu-system-aarch64), with
# static arm64 programs (make rig-arm64):
# - tests/kernel/arm64_uabi.c: PR_SET/GET_TAGGED_ADDR_CTRL's nr_bits and
#   offset (kernel/series/2-tagged-addr-uabi/): 1 to 8 bits get 8 at 56,
#   0, 9 and -1 are EINVAL, a failed call writes nothing back and leaves
#   tagging off, the three-argument calls still work, MTE's TCF and
#   tag-mask fields read back as set through both forms, the ptrace
#   regset, abi.tagged_addr_disabled;
# - selftests/mm/tags, the series' move of arm64's tags test, with
#   TAGGED_EXPECT=tbi: tagging must be offered and work;
# - arm64's MTE selftests: check_prctl (the MTE fields of the prctl) and
#   the ones whose tag checks must fault, with the prctl's TCF modes and
#   tag inclusion masks: check_tags_inclusion, check_mmap_options,
#   check_buffer_fill, check_child_memory. They need the
#   rig's QEMU: Debian's 7.2 looks a granule's allocation tag up at its
#   page's first granule pair, so no tag check ever faults there
#   (tests/vm/qemu/, the target/arm patch);
# - tests/kernel/mte_ctrl_table.c: MTE's TCF and tag-mask fields through
#   the three-argument prctl and the ptrace regset, and what they do, must
#   answer exactly as on upstream 6.12: its table, line by line, against
#   tests/kernel/arm64-mte-ctrl.upstream (recorded on upstream built for
#   arm64: make record-mte-ctrl).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

a64=build/vm-arm64
mte_want=tests/kernel/arm64-mte-ctrl.upstream

# compare_mte_ctrl: one result a line of the upstream recording, passing
# when the series' kernel printed the same line, and one for the count.
compare_mte_ctrl()
{
	local out err rc i what
	local -a got want

	need_built "run 'make rig-arm64'" $a64/mte_ctrl_table
	need_built "run 'make record-mte-ctrl' (boots upstream 6.12)" "$mte_want"
	out=$(mktemp) err=$(mktemp)
	"$rig" --arch arm64 -- $a64/mte_ctrl_table > "$out" 2> "$err"
	rc=$?
	harness "$rc" "guest run (--arch arm64 -- $a64/mte_ctrl_table) exited 0" \
		"exit status $rc" "$(cat "$err")"
	mapfile -t got < "$out"
	mapfile -t want < "$mte_want"
	rm -f "$out" "$err"
	for i in "${!want[@]}"; do
		what="MTE's prctl answers as upstream's: ${want[i]%%: *}"
		if [ "${got[i]-}" = "${want[i]}" ]; then
			ok 0 "$what"
		else
			ok 1 "$what" "series:   ${got[i]-(no line $((i + 1)))}" \
				"upstream: ${want[i]}"
		fi
	done
	is "${#got[@]}" "${#want[@]}" \
		"mte_ctrl_table printed as many lines as on upstream"
}

tap_guest --arch arm64 -- $a64/arm64_uabi
TAGGED_EXPECT=tbi tap_guest --arch arm64 -- $a64/tags_test
for t in check_prctl check_tags_inclusion check_mmap_options \
	 check_buffer_fill check_child_memory; do
	tap_guest --arch arm64 -- $a64/$t
done
compare_mte_ctrl
tap_done
