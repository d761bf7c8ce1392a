#!/bin/bash
# make qemu-series [SIGNOFF="Name <mail>"]: tests/vm/qemu/ as a
# submission in build/series/qemu/: every patch as "[PATCH n/N]" with
# author and Signed-off-by from SIGNOFF (as `make series` does for the
# kernel series; without it the placeholder the patches carry stays), and
# all of them in one git-am-able mbox. Proved on a scratch worktree of the
# pristine source (tag "debian" of build/qemu-src): the whole series
# applies in order, each commit is authored and signed off by SIGNOFF, and
# the patches that fix stock QEMU bugs on their own (STANDALONE below)
# each apply alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

placeholder='tagtrace <tagtrace@localhost>'
signoff=${SIGNOFF:-$placeholder}
if ! [[ $signoff =~ ^[^\<\>@]+\ \<[^\<\>\ ]+@[^\<\>\ ]+\>$ ]]; then
	echo "qemu-series: SIGNOFF must look like 'Name <user@host>', not '$signoff'" >&2
	exit 2
fi
# The patches that must apply to stock QEMU 7.2 by themselves (a part of
# their file names, which git format-patch makes from the subject).
STANDALONE=(
	-reserved-CR3-and-CR4-bits
	-non-canonical-FS-and-GS-b
	-accel-tcg-read-a-page-s-code-dirty
	-accel-tcg-close-the-window
	-target-arm-look-up-a-granule
)
src=$build/qemu-src
[ -d "$src/.git" ] || { echo "qemu-series: run 'make qemu' first" >&2; exit 1; }

patches=("$top"/tests/vm/qemu/*.patch)
n=${#patches[@]}
out=$build/series/qemu
rm -rf "$out"
mkdir -p "$out"
mbox=$out/qemu-7.2-tagging.mbox

i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	SIGNOFF=$signoff PLACEHOLDER=$placeholder N=$n I=$i perl -pe '
		BEGIN { $s = $ENV{SIGNOFF}; $ph = quotemeta $ENV{PLACEHOLDER}; }
		s/^Subject: \[PATCH[^\]]*\]/sprintf("Subject: [PATCH %02d\/%02d]", $ENV{I}, $ENV{N})/e;
		s/^From: $ph$/From: $s/;
		s/^Signed-off-by: $ph$/Signed-off-by: $s/;
	' "$p" > "$out/$(basename "$p")"
done
cat "$out"/[0-9][0-9][0-9][0-9]-*.patch > "$mbox"

# Prove it on a scratch worktree of the pristine tree.
check=$build/qemu-series-am
git -C "$src" worktree prune
[ -d "$check" ] || git -C "$src" worktree add -q --detach "$check" refs/tags/debian
am()
{
	git -C "$check" am --abort > /dev/null 2>&1 || true
	git -C "$check" reset -q --hard refs/tags/debian
	local p
	for p in "$@"; do
		git -C "$check" am -q --keep-cr --committer-date-is-author-date "$p" || {
			git -C "$check" am --abort > /dev/null 2>&1 || true
			echo "qemu-series: $(basename "$p") does not apply" >&2
			return 1
		}
	done
}
am "$out"/[0-9][0-9][0-9][0-9]-*.patch
check_signed qemu-series "$check" refs/tags/debian "$n" "$signoff" || exit 1
for part in "${STANDALONE[@]}"; do
	p=$(find "$out" -name "[0-9][0-9][0-9][0-9]*$part*.patch" | head -n1)
	[ -n "$p" ] || { echo "qemu-series: no patch named *$part*" >&2; exit 1; }
	am "$p"
	echo "qemu-series: $(basename "$p") applies alone to stock 7.2"
done
git -C "$check" reset -q --hard refs/tags/debian
echo "qemu-series: $n patches, signed '$signoff'"
echo "qemu-series: $mbox (git am applies all $n to qemu $QEMU_SOURCE_VERSION)"
