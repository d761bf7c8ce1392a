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
# must justify them in a "checkpatch --strict:" note below the ---, and the
# note must name each finding: its type's words (NAMES in the checker
# below; for a type not listed, its message) and, where the message
# names one, its subject (the CamelCase identifier, the reused argument,
# the operator spaced). Where the note counts findings ("one WARNING",
# "four spacing CHECKs", "the three unused-argument WARNINGs"), the count
# must be checkpatch's. The findings are checkpatch's own "total:" line,
# which it prints for every patch it got through: no such line (no
# checkpatch, a crash) is a failure, not a patch without findings.
# CHECKPATCH_SERIES=DIR checks the patches of DIR (a directory per series).
cp=build/linux-upstream/scripts/checkpatch.pl
[ -f "$cp" ]
ok $? "checkpatch is there ($cp)" "run 'make kernel-upstream'"
cps=${CHECKPATCH_SERIES:-kernel/series}
unjustified=$(python3 - "$cp" "$cps" "$cps"/*/[0-9]*.patch <<'EOF'
import re
import subprocess
import sys

# What a note says to name a finding of each type (regular expressions,
# case-insensitive, searched in the note as one line): {q} is the first
# word the message quotes, {i} the identifier it names in <...>.
NAMES = {
    "BIT_MACRO": r"\bBIT\b|1 ?<<",
    "CAMELCASE": r"\b{i}\b",
    "COMPLEX_MACRO": r"complex value|parenthes",
    "ENOSYS": r"ENOSYS",
    "FILE_PATH_CHANGES": r"MAINTAINERS",
    "LONG_LINE": r"100 columns|line length|long line",
    "LONG_LINE_STRING": r"100 columns|line length|long line",
    "MACRO_ARG_REUSE": r"^(?=.*reuse)(?=.*\b{q}\b)",
    "MACRO_ARG_UNUSED": r"unused|not used",
    "MACRO_WITH_FLOW_CONTROL": r"flow control|\breturn\b",
    "OPEN_ENDED_LINE": r"line end|end with",
    "PARENTHESIS_ALIGNMENT": r"align",
    # "spaces preferred around that '*'": said, or the code quoted.
    "SPACING": r'spac|"[^"]*{q}[^"]*"',
    "STRCPY": r"strs?cpy",
    "TRAILING_SEMICOLON": r"trailing semicolon",
    "UNKNOWN_COMMIT_ID": r"commit id",
    "VOLATILE": r"volatile",
}
NUMBERS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
    "twenty".split())}
FINDING = re.compile(r"^(ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$")
TOTAL = re.compile(r"^total: (\d+) errors, (\d+) warnings, (\d+) checks,")
COUNT = re.compile(r"\b(%s)\s+([^.;:,()]{0,60}?)\b(ERROR|WARNING|CHECK)S?\b"
                   % "|".join(NUMBERS), re.I)


def named(kind, msg):
    """The regular expression a note naming this finding matches."""
    q = re.search(r"'([^']+)'", msg)
    i = re.search(r"<([^>]+)>", msg)
    if kind in NAMES:
        return NAMES[kind].format(q=re.escape(q.group(1)) if q else "",
                                  i=re.escape(i.group(1)) if i else "")
    return re.escape(re.split(r"'|:| - ", msg)[0].strip())


def note(patch):
    """The "checkpatch --strict:" note below the ---, as one line."""
    lines, on, below = [], False, False
    for line in open(patch, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("diff --git"):
            break
        below = below or line == "---"
        if below and "checkpatch --strict:" in line:
            on = True
        elif on and not line.startswith("    "):
            break
        if on:
            lines.append(line.strip())
    return " ".join(lines) if on else None


cp, top = sys.argv[1], sys.argv[2].rstrip("/") + "/"
for patch in sys.argv[3:]:
    name = patch[len(top):] if patch.startswith(top) else patch
    with open(patch, "rb") as f:
        out = subprocess.run(["perl", cp, "--no-tree", "--strict",
                              "--show-types", "-"], stdin=f,
                             capture_output=True, text=True,
                             errors="replace").stdout
    total = next((TOTAL.match(l) for l in out.splitlines() if TOTAL.match(l)), None)
    if not total:
        print(f"{name}: checkpatch printed no total: line")
        continue
    found = [FINDING.match(l).groups() for l in out.splitlines() if FINDING.match(l)]
    levels = {"ERROR": int(total.group(1)), "WARNING": int(total.group(2)),
              "CHECK": int(total.group(3))}
    if sum(levels.values()) != len(found):
        print(f"{name}: checkpatch's total is {sum(levels.values())}, "
              f"its findings {len(found)}")
    if not found:
        continue
    text = note(patch)
    if text is None:
        print(f"{name}: {len(found)} findings, no checkpatch --strict: note below the ---")
        continue
    for level, kind, msg in found:
        if not re.search(named(kind, msg), text, re.I | re.S):
            print(f"{name}: {level}:{kind} not named in its note: {msg}")
    # Counts the note gives: of the findings its words name, or of all of
    # one level where it names none.
    for m in COUNT.finditer(text):
        n, words, level = NUMBERS[m.group(1).lower()], m.group(2), m.group(3).upper()
        mine = [f for f in found if f[0] == level]
        which = [f for f in mine if words.strip() and
                 re.search(named(f[1], f[2]), words, re.I | re.S)]
        got = len(which) if which else len(mine)
        if got != n:
            print(f"{name}: the note says \"{m.group(0)}\", checkpatch reports {got}")
EOF
)
is "$unjustified" "" "checkpatch --strict ran on every patch, and its note below the --- names every finding"

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
