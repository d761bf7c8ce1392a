# Shared by the build scripts: ccache, git identity, source trees in git.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$top/build
. "$top/scripts/versions.sh"

# ccache lives outside the clone so CI and later runs reuse it; paths
# under build/ are hashed relative to it so another clone still hits.
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/tagtrace/ccache}
export CCACHE_BASEDIR=$build
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export GIT_AUTHOR_NAME=tagtrace GIT_AUTHOR_EMAIL=tagtrace@localhost
export GIT_COMMITTER_NAME=tagtrace GIT_COMMITTER_EMAIL=tagtrace@localhost

# sum_files FILE... : a short digest of the files' contents ("" for none).
sum_files()
{
	local f

	for f in "$@"; do
		if [ -e "$f" ]; then cat "$f"; fi
	done | sha256sum | cut -c1-16
}

# patch_sum PATCH: sum_files of a patch, blind to its "[PATCH n/m]"
# numbering, so that adding a patch at the end keeps the others' sums.
patch_sum()
{
	sed -E 's|^(Subject: \[PATCH) [0-9]+/[0-9]+\]|\1]|' "$1" |
		sha256sum | cut -c1-16
}

# import_tree DIR TAG VERSION CMD... : unless DIR holds VERSION already, run
# CMD to fill DIR, then commit it to git as TAG.
import_tree()
{
	local dir=$1 tag=$2 ver=$3

	shift 3
	[ "$(cat "$dir/.tagtrace-version" 2>/dev/null)" = "$ver" ] && return 0
	rm -rf "$dir"
	"$@"
	git -C "$dir" init -q
	git -C "$dir" add -A -f .
	git -C "$dir" commit -q -m "$ver"
	git -C "$dir" tag "$tag"
	echo "$ver" > "$dir/.tagtrace-version"
}

# apply_series TREE TAG NAME PATCH... : make TREE be TAG plus the patches,
# applied in order with `git am`, one commit each. The tree remembers the
# digest of each patch it holds; patches that are unchanged at the front of
# the series stay applied and only the rest is redone, so only the files the
# changed patches touch get new timestamps and are rebuilt.
apply_series()
{
	local tree=$1 tag=$2 name=$3 state p n=0 keep=0 had=0 want=()

	shift 3
	state=$tree/.tagtrace-series
	for p in "$@"; do
		[ -e "$p" ] && want+=("$(patch_sum "$p")")
	done
	if [ -f "$state" ] && git -C "$tree" diff --quiet HEAD 2>/dev/null; then
		mapfile -t had_sums < "$state"
		had=${#had_sums[@]}
		while [ $keep -lt $had ] && [ $keep -lt ${#want[@]} ] &&
		      [ "${had_sums[$keep]}" = "${want[$keep]}" ]; do
			keep=$((keep + 1))
		done
		[ $keep = $had ] && [ $keep = ${#want[@]} ] && return 0
	fi
	rm -f "$state"
	git -C "$tree" am --abort > /dev/null 2>&1 || true
	if [ $had -gt 0 ] && [ "$(git -C "$tree" rev-list --count "refs/tags/$tag..HEAD")" = $had ]; then
		git -C "$tree" reset -q --hard "HEAD~$((had - keep))"
	else
		keep=0
		git -C "$tree" reset -q --hard "refs/tags/$tag"
	fi
	for p in "$@"; do
		[ -e "$p" ] || continue
		n=$((n + 1))
		[ $n -le $keep ] && continue
		if ! git -C "$tree" am -q --keep-cr "$p"; then
			git -C "$tree" am --abort > /dev/null 2>&1 || true
			echo "$name: $p does not apply" >&2
			return 1
		fi
	done
	echo "$name: $n patches ($keep kept, $((n - keep)) applied)"
	: > "$state"
	[ ${#want[@]} -eq 0 ] || printf '%s\n' "${want[@]}" > "$state"
}

# notrace_patches: the series without their tracepoint patches, one path a
# line, in the order they apply (make kernel-notrace, the baseline of
# tests/bench/trace-overhead.sh): every *-tracepoint.patch, and series 6
# (LAM_U48), whose kernel patch extends the events' code and so needs them.
notrace_patches()
{
	local p

	for p in "$top"/kernel/series/*/*.patch; do
		case $p in
		*-tracepoint.patch|*/6-lam-u48/*) ;;
		*) printf '%s\n' "$p" ;;
		esac
	done
}

# mainline_patches: series 1-4, the ones meant for mainline (make
# kernel-mainline), one path a line, in the order they apply.
mainline_patches()
{
	printf '%s\n' "$top"/kernel/series/[1-4]-*/*.patch
}

# check_signed WHO TREE BASE N SIGNOFF: after `git am` of a series into
# TREE, BASE..HEAD must be N commits, each authored and signed off by
# SIGNOFF; otherwise say so as WHO and fail.
check_signed()
{
	local who=$1 tree=$2 base=$3 n=$4 signoff=$5 got bad

	got=$(git -C "$tree" rev-list --count "$base..HEAD")
	bad=$(git -C "$tree" log --format='%an <%ae>%x09%(trailers:key=Signed-off-by,valueonly,separator=%x2C)' \
		"$base..HEAD" | awk -F'\t' -v s="$signoff" '$1 != s || index($2, s) == 0' | wc -l)
	if [ "$got" != "$n" ] || [ "$bad" != 0 ]; then
		echo "$who: git am gave $got of $n commits, $bad not by '$signoff'" >&2
		return 1
	fi
}
