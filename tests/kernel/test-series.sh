#!/bin/bash
# The series as it is submitted: `make series SIGNOFF=...` writes a cover
# letter and every patch as one mbox that `git am` applies to the pristine
# tree, authored and signed off by SIGNOFF with no trace of the placeholder;
# a malformed SIGNOFF is refused; no commit message carries checkpatch
# notes in its body (they belong below the ---), and every patch that
# checkpatch --strict finds anything in justifies it there; the series
# without its tracepoint patches, the bench's baseline (make
# kernel-notrace), applies too. Host only.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

who='Jane Submitter <jane@example.org>'
n=$(ls kernel/series/[0-9]*.patch | wc -l)
out=$(SIGNOFF="$who" scripts/series.sh 2>&1)
ok $? "make series SIGNOFF=... succeeds (git am of all $n patches inside)" "$out"
mbox=$(ls build/series/*.mbox 2>/dev/null | head -1)
is "$(grep -c '^From [0-9a-f]\{40\} ' "$mbox" 2>/dev/null)" $((n + 1)) \
	"the mbox holds the cover letter and $n patches"
is "$(grep -c "^Signed-off-by: $who\$" "$mbox")" "$n" \
	"every patch is signed off by SIGNOFF"
is "$(grep -c "^From: $who\$" "$mbox")" $((n + 1)) \
	"every mail, the cover letter included, is from SIGNOFF"
is "$(grep -c 'tagtrace@localhost' "$mbox")" 0 "no placeholder identity is left"
is "$(grep -c "^Subject: \[PATCH v2 [0-9]*/$n\]" "$mbox")" $((n + 1)) \
	"subjects are numbered [PATCH v2 k/$n]"
grep -q '^Subject: \[PATCH v2 00/' "$mbox"
ok $? "the cover letter is [PATCH v2 00/$n]"

SIGNOFF='no address' scripts/series.sh > /dev/null 2>&1
is $? 2 "a SIGNOFF without <mail> is refused with status 2"

# A commit message ends at the first "---" line; checkpatch notes go after.
bad=$(for p in kernel/series/[0-9]*.patch; do
	sed -n '/^Subject:/,/^---$/p' "$p" | grep -q '^checkpatch --strict:' &&
		basename "$p"
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
unjustified=$(for p in kernel/series/[0-9]*.patch; do
	total=$(perl $cp --no-tree --strict - < "$p" 2>&1 |
		sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks, .*/\1 \2 \3/p')
	if [ -z "$total" ]; then
		echo "$(basename "$p"): checkpatch printed no total: line"
		continue
	fi
	set -- $total
	n=$(($1 + $2 + $3))
	[ "$n" -eq 0 ] && continue
	sed -n '/^---$/,/^diff --git/p' "$p" | grep -q 'checkpatch --strict:' ||
		echo "$(basename "$p"): $n findings"
done)
is "$unjustified" "" "checkpatch --strict ran on every patch, and every finding is justified below the ---"

# The bench's baseline: every patch but the *-tracepoint.patch ones.
wt=build/series-notrace-check
git -C build/linux-upstream worktree remove --force "$top/$wt" > /dev/null 2>&1
rm -rf "$wt"
git -C build/linux-upstream worktree prune
git -C build/linux-upstream worktree add -q --detach "$top/$wt" refs/tags/upstream
failed=
for p in kernel/series/[0-9]*.patch; do
	case $p in *-tracepoint.patch) continue ;; esac
	if ! git -C "$wt" -c user.name=t -c user.email=t@t am -q --keep-cr \
		"$top/$p" > /dev/null 2>&1; then
		failed=$(basename "$p")
		break
	fi
done
is "$failed" "" "the series without its tracepoint patches applies (make kernel-notrace)"
git -C build/linux-upstream worktree remove --force "$top/$wt" > /dev/null 2>&1

tap_done
