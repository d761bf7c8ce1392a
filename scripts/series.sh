#!/bin/bash
# make series [SIGNOFF="Name <mail>"]: kernel/series/ as a mailing-list
# submission in build/series/: the cover letter (kernel/series/
# 0000-cover-letter.txt) and every patch as "[PATCH v2 n/N]" files, and
# all of them in one git-am-able mbox. Author and Signed-off-by come from
# SIGNOFF, so whoever submits the series signs it; without it the
# placeholder the patches carry stays. The mbox is then proved with
# `git am` on a scratch worktree of the pristine tree: every patch applies
# and each commit is authored and signed off by SIGNOFF.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

placeholder='tagtrace <tagtrace@localhost>'
signoff=${SIGNOFF:-$placeholder}
version=${SERIES_VERSION:-v2}
if ! [[ $signoff =~ ^[^\<\>@]+\ \<[^\<\>\ ]+@[^\<\>\ ]+\>$ ]]; then
	echo "series: SIGNOFF must look like 'Name <user@host>', not '$signoff'" >&2
	exit 2
fi
up=$build/linux-upstream
[ -d "$up/.git" ] || { echo "series: run 'make kernel' first" >&2; exit 1; }

cover=$top/kernel/series/0000-cover-letter.txt
patches=("$top"/kernel/series/*.patch)
n=${#patches[@]}
out=$build/series
rm -rf "$out"
mkdir -p "$out"
mbox=$out/tagged-addr-$version.mbox
date=$(date -R)

# The cover letter's first line is its subject, the rest its body.
{
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	echo "From: $signoff"
	echo "Date: $date"
	printf 'Subject: [PATCH %s 00/%02d] %s\n\n' "$version" "$n" "$(head -n1 "$cover")"
	tail -n +3 "$cover"
	echo
	echo "-- "
	git -C "$top" log -1 --format='tagtrace %h' -- kernel/series
} > "$out/0000-cover-letter.patch"

# Each patch: renumbered "[PATCH v2 n/N]" by its place in the series (the
# files keep the numbers they were made with), author and sign-off from
# SIGNOFF.
k=0
for p in "${patches[@]}"; do
	k=$((k + 1))
	f=$out/$(basename "$p")
	SIGNOFF=$signoff PLACEHOLDER=$placeholder VERSION=$version \
	K=$(printf '%02d' $k) N=$(printf '%02d' $n) perl -pe '
		BEGIN { $s = $ENV{SIGNOFF}; $ph = quotemeta $ENV{PLACEHOLDER}; }
		s/^Subject: \[PATCH \d+\/\d+\]/Subject: [PATCH $ENV{VERSION} $ENV{K}\/$ENV{N}]/;
		s/^From: $ph$/From: $s/;
		s/^Signed-off-by: $ph$/Signed-off-by: $s/;
	' "$p" > "$f"
done
cat "$out"/[0-9][0-9][0-9][0-9]-*.patch > "$mbox"

# Prove it: git am the patches (the cover letter is not a commit).
check=$build/series-am
git -C "$up" worktree prune
[ -d "$check" ] || git -C "$up" worktree add -q --detach "$check" refs/tags/upstream
git -C "$check" am --abort > /dev/null 2>&1 || true
git -C "$check" reset -q --hard refs/tags/upstream
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
	git -C "$check" am -q --keep-cr --committer-date-is-author-date "$p" || {
		git -C "$check" am --abort > /dev/null 2>&1 || true
		echo "series: $(basename "$p") does not apply" >&2
		exit 1
	}
done
check_signed series "$check" refs/tags/upstream "$n" "$signoff" || exit 1
echo "series: $n patches and a cover letter, signed '$signoff'"
echo "series: $mbox (git am applies all $n to linux-source-6.12 $LINUX_SOURCE_VERSION)"
