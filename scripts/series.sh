#!/bin/bash
# make series [SIGNOFF="Name <mail>"]: each directory of kernel/series/ is
# one series, posted on its own, applied in the directories' order. For
# each, build/series/<dir>/ gets its cover letter (the directory's
# 0000-cover-letter.txt) and its patches as "[PATCH v2 k/N]" files, and
# build/series/<dir>.mbox all of them, git-am-able. Author and
# Signed-off-by come from SIGNOFF, so whoever submits the series signs it;
# without it the placeholder the patches carry stays.
#
# Base and prerequisites, as b4 writes them: a cover letter's
# "prerequisite-series: DIR" lines become one "prerequisite-patch-id:"
# line per patch of DIR (git patch-id --stable), and "base-commit:" names
# the commit of the pristine tree (the linux-source tarball imported by
# scripts/kernel.sh; its tree id, which anyone importing the same tarball
# gets, is printed beside it). Then every series is proved with `git am`
# on a scratch worktree of the pristine tree: first onto the base and its
# prerequisites alone, then all series in order; each commit must be
# authored and signed off by SIGNOFF.
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
base=$(git -C "$up" rev-parse refs/tags/upstream)
base_tree=$(git -C "$up" rev-parse 'refs/tags/upstream^{tree}')

out=$build/series
rm -rf "$out"
mkdir -p "$out"
date=$(date -R)
mapfile -t dirs < <(cd "$top/kernel/series" && ls -d [0-9]*-*/ | sed 's|/$||')

# write_series DIR: build/series/DIR/ and build/series/DIR.mbox.
write_series()
{
	local dir=$1 src=$top/kernel/series/$1 dst=$out/$1 p k=0 n req line
	local patches=("$src"/[0-9]*.patch)

	n=${#patches[@]}
	mkdir -p "$dst"
	for p in "${patches[@]}"; do
		k=$((k + 1))
		SIGNOFF=$signoff PLACEHOLDER=$placeholder VERSION=$version \
		K=$(printf '%02d' $k) N=$(printf '%02d' $n) perl -pe '
			BEGIN { $s = $ENV{SIGNOFF}; $ph = quotemeta $ENV{PLACEHOLDER}; }
			s/^Subject: \[PATCH(?: \d+\/\d+)?\]/Subject: [PATCH $ENV{VERSION} $ENV{K}\/$ENV{N}]/;
			s/^From: $ph$/From: $s/;
			s/^Signed-off-by: $ph$/Signed-off-by: $s/;
		' "$p" > "$dst/$(basename "$p")"
	done
	# The cover letter's first line is its subject, the rest its body.
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: $signoff"
		echo "Date: $date"
		printf 'Subject: [PATCH %s 00/%02d] %s\n\n' "$version" "$n" \
			"$(head -n1 "$src/0000-cover-letter.txt")"
		tail -n +3 "$src/0000-cover-letter.txt" | while IFS= read -r line; do
			case $line in
			prerequisite-series:*)
				req=${line#prerequisite-series: }
				[ -d "$out/$req" ] || {
					echo "series: $dir needs $req, which is not an earlier series" >&2
					exit 1
				}
				for p in "$out/$req"/[0-9]*.patch; do
					[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
					echo "prerequisite-patch-id: $(git patch-id --stable < "$p" | cut -d' ' -f1)"
				done ;;
			base-commit:*)
				echo "base-commit: $base" ;;
			*)
				printf '%s\n' "$line" ;;
			esac
		done
		echo
		echo "-- "
		git -C "$top" log -1 --format='tagtrace %h' -- "kernel/series/$dir"
	} > "$dst/0000-cover-letter.patch"
	grep -q '^base-commit: ' "$dst/0000-cover-letter.patch" || {
		echo "series: $dir's cover letter has no base-commit: line" >&2
		exit 1
	}
	cat "$dst"/[0-9][0-9][0-9][0-9]-*.patch > "$out/$dir.mbox"
}

# am TREE PATCH...: git am the patches (a cover letter is not a commit).
am()
{
	local tree=$1 p

	shift
	for p in "$@"; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		git -C "$tree" am -q --keep-cr --committer-date-is-author-date "$p" || {
			git -C "$tree" am --abort > /dev/null 2>&1 || true
			echo "series: $p does not apply" >&2
			return 1
		}
	done
}

check=$build/series-am
git -C "$up" worktree prune
[ -d "$check" ] || git -C "$up" worktree add -q --detach "$check" refs/tags/upstream
git -C "$check" am --abort > /dev/null 2>&1 || true
total=0
for d in "${dirs[@]}"; do
	write_series "$d"
	# Onto the base and the prerequisites the cover letter names, alone.
	git -C "$check" reset -q --hard refs/tags/upstream
	for r in $(sed -n 's/^prerequisite-series: //p' "$top/kernel/series/$d/0000-cover-letter.txt"); do
		am "$check" "$out/$r"/[0-9]*.patch
	done
	am "$check" "$out/$d"/[0-9]*.patch || {
		echo "series: $d does not apply onto its base and prerequisites" >&2
		exit 1
	}
	n=$(ls "$out/$d"/[0-9]*.patch | grep -vc '/0000-cover-letter.patch$')
	total=$((total + n))
	echo "series: $d: $n patches and a cover letter ($out/$d.mbox)"
done
# All of them, in order.
git -C "$check" reset -q --hard refs/tags/upstream
for d in "${dirs[@]}"; do
	am "$check" "$out/$d"/[0-9]*.patch
done
check_signed series "$check" refs/tags/upstream "$total" "$signoff" || exit 1
echo "series: ${#dirs[@]} series, $total patches, signed '$signoff'; base $base (tree $base_tree: linux-source-6.12 $LINUX_SOURCE_VERSION)"
