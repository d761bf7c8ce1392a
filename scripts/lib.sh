# Shared by the build scripts: ccache, git identity, source trees in git.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$top/build
. "$top/scripts/versions.sh"

# ccache lives outside the clone so CI and later sessions reuse it; paths
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
# applied in order with `git am`; a no-op while the patches are unchanged.
apply_series()
{
	local tree=$1 tag=$2 name=$3 want p n=0

	shift 3
	want=$(sum_files "$@")
	[ "$(cat "$tree/.tagtrace-series" 2>/dev/null)" = "$want" ] && return 0
	rm -f "$tree/.tagtrace-series"
	git -C "$tree" am --abort > /dev/null 2>&1 || true
	git -C "$tree" reset -q --hard "refs/tags/$tag"
	for p in "$@"; do
		[ -e "$p" ] || continue
		if ! git -C "$tree" am -q --keep-cr "$p"; then
			git -C "$tree" am --abort > /dev/null 2>&1 || true
			echo "$name: $p does not apply to $tag" >&2
			return 1
		fi
		n=$((n + 1))
	done
	echo "$name: applied $n patches"
	echo "$want" > "$tree/.tagtrace-series"
}
