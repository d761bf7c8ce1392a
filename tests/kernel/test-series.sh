#!/bin/bash
# The series as they are submitted: kernel/series/ holds one directory per
# series, each posted on its own with its cover letter. `make series
# SIGNOFF=...` writes each as an mbox that `git am` applies (onto the base
# and the prerequisites its cover letter names, and all of them in order),
# authored and signed off by SIGNOFF with no trace of the placeholder, with
# b4's base-commit and one prerequisite-patch-id per prerequisite patch; a
# malformed SIGNOFF is refused; no commit message carries checkpatch notes
# in its body (they belong below the ---), and every patch that checkpatch
# --strict finds anything in justifies it there; the series without their
# tracepoint patches, the bench's baseline (make kernel-notrace), apply
# too. Host only.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

who='Jane Submitter <jane@example.org>'
mapfile -t dirs < <(cd kernel/series && ls -d [0-9]*-*/ | sed 's|/$||')
n=$(ls kernel/series/*/[0-9]*.patch | wc -l)
out=$(SIGNOFF="$who" scripts/series.sh 2>&1)
ok $? "make series SIGNOFF=... succeeds (git am of all $n patches inside)" "$out"
for d in "${dirs[@]}"; do
	k=$(ls kernel/series/"$d"/[0-9]*.patch | wc -l)
	mbox=build/series/$d.mbox
	is "$(grep -c '^From [0-9a-f]\{40\} ' "$mbox" 2>/dev/null)" $((k + 1)) \
		"$d: the mbox holds the cover letter and $k patches"
	is "$(grep -c "^Signed-off-by: $who\$" "$mbox")" "$k" \
		"$d: every patch is signed off by SIGNOFF"
	is "$(grep -c "^From: $who\$" "$mbox")" $((k + 1)) \
		"$d: every mail, the cover letter included, is from SIGNOFF"
	is "$(grep -c 'tagtrace@localhost' "$mbox")" 0 "$d: no placeholder identity is left"
	is "$(grep -c "^Subject: \[PATCH v2 [0-9]*/$(printf %02d "$k")\]" "$mbox")" $((k + 1)) \
		"$d: subjects are numbered [PATCH v2 k/$k], the cover letter 00"
	# b4's trailers: the base, and one patch id per prerequisite patch.
	want=0
	for r in $(sed -n 's/^prerequisite-series: //p' kernel/series/"$d"/0000-cover-letter.txt); do
		want=$((want + $(ls kernel/series/"$r"/[0-9]*.patch | wc -l)))
	done
	is "$(grep -c '^base-commit: [0-9a-f]\{40\}$' "$mbox")" 1 "$d: the cover letter names its base-commit"
	is "$(grep -c '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$mbox")" "$want" \
		"$d: one prerequisite-patch-id per patch of the series it needs ($want)"
done

SIGNOFF='no address' scripts/series.sh > /dev/null 2>&1
is $? 2 "a SIGNOFF without <mail> is refused with status 2"

# A commit message ends at the first "---" line; checkpatch notes go after.
bad=$(for p in kernel/series/*/[0-9]*.patch; do
	sed -n '/^Subject:/,/^---$/p' "$p" | grep -q '^checkpatch --strict:' &&
		echo "${p#kernel/series/}"
done)
is "$bad" "" "no commit message has checkpatch notes above the ---"

# checkpatch --strict on each patch (given on stdin): a patch with findings
# must justify them in a "checkpatch --strict:" note below the ---. The
# count is checkpatch's own "total:" line, which it prints for every patch
# it got through: no such line (no checkpatch, a crash) is a failure, not
# a patch without findings.
cp=build/linux-upstream/scripts/checkpatch.pl
[ -f "$cp" ]
ok $? "checkpatch is there ($cp)" "run 'make kernel-upstream'"
unjustified=$(for p in kernel/series/*/[0-9]*.patch; do
	total=$(perl $cp --no-tree --strict - < "$p" 2>&1 |
		sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks, .*/\1 \2 \3/p')
	if [ -z "$total" ]; then
		echo "${p#kernel/series/}: checkpatch printed no total: line"
		continue
	fi
	set -- $total
	n=$(($1 + $2 + $3))
	[ "$n" -eq 0 ] && continue
	sed -n '/^---$/,/^diff --git/p' "$p" | grep -q 'checkpatch --strict:' ||
		echo "${p#kernel/series/}: $n findings"
done)
is "$unjustified" "" "checkpatch --strict ran on every patch, and every finding is justified below the ---"

# The bench's baseline: every patch but the *-tracepoint.patch ones.
wt=build/series-notrace-check
git -C build/linux-upstream worktree remove --force "$top/$wt" > /dev/null 2>&1
rm -rf "$wt"
git -C build/linux-upstream worktree prune
git -C build/linux-upstream worktree add -q --detach "$top/$wt" refs/tags/upstream
failed=
. "$top/scripts/lib.sh"
for p in $(notrace_patches); do
	if ! git -C "$wt" -c user.name=t -c user.email=t@t am -q --keep-cr \
		"$p" > /dev/null 2>&1; then
		failed=${p#"$top"/kernel/series/}
		break
	fi
done
is "$failed" "" "the series without its tracepoint patches applies (make kernel-notrace)"
git -C build/linux-upstream worktree remove --force "$top/$wt" > /dev/null 2>&1

tap_done
