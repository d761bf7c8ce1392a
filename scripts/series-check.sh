#!/bin/bash
# Prove every patch of kernel/series/ on its own: apply them one at a time
# to a scratch worktree (build/linux-check), build bzImage after each, run
# checkpatch --strict on each, and compile the arm64 side of any patch that
# touches arch/arm64 with Debian's aarch64 cross compiler.
# Long (a full kernel rebuild per patch that changes a widely included
# header); not part of `make check`. Prints one line per patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

export KBUILD_BUILD_TIMESTAMP='2026-01-01 00:00:00 UTC'
export KBUILD_BUILD_USER=tagtrace KBUILD_BUILD_HOST=rig
up=$build/linux-upstream
tree=$build/linux-check
arm=$build/linux-check-arm64
logs=$build/logs/series-check
mkdir -p "$logs"

[ -d "$up/.git" ] || { echo "series-check: run 'make kernel' first" >&2; exit 1; }
if [ ! -d "$tree" ]; then
	git -C "$up" worktree prune
	git -C "$up" worktree add -q --detach "$tree" refs/tags/upstream
fi
git -C "$tree" am --abort > /dev/null 2>&1 || true
git -C "$tree" reset -q --hard refs/tags/upstream
cp "$build/linux/.config" "$tree/.config"
make -C "$tree" -s olddefconfig

fail=0
for p in "$top"/kernel/series/*.patch; do
	n=$(basename "$p" .patch)
	git -C "$tree" am -q --keep-cr "$p"
	if make -C "$tree" -j"$(nproc)" CC="ccache gcc" bzImage > "$logs/$n.x86.log" 2>&1; then
		x86=ok
	else
		x86=FAIL; fail=1
	fi
	cp=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict --terse "$p" 2>/dev/null |
	     grep -cE 'ERROR|WARNING|CHECK' || true)
	arm64=-
	if grep -q '^+++ b/arch/arm64/' "$p"; then
		[ -f "$arm/.config" ] ||
			make -C "$tree" -s O="$arm" ARCH=arm64 \
				CROSS_COMPILE=aarch64-linux-gnu- defconfig > /dev/null
		objs=$(grep -o '^+++ b/arch/arm64/.*\.c$\|^+++ b/kernel/.*\.c$' "$p" |
		       sed 's|^+++ b/||; s|\.c$|.o|' | tr '\n' ' ')
		if make -C "$tree" O="$arm" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			CC="ccache aarch64-linux-gnu-gcc" -j"$(nproc)" $objs \
			> "$logs/$n.arm64.log" 2>&1; then
			arm64=ok
		else
			arm64=FAIL; fail=1
		fi
	fi
	printf '%-70s x86:%-4s arm64:%-4s checkpatch:%s\n' "$n" "$x86" "$arm64" "$cp"
done
exit $fail
