#!/bin/bash
# Every patch of kernel/series/ keeps the tagged_addr_untag event right,
# so that a bisection through the series never lands on a kernel whose
# event misses user-limit checks: from the patch that adds the event to
# the last one, each user-limit check in a few objects that make them
# (mask_user_address() in strncpy_from_user() and strnlen_user(),
# access_ok(), get_user() and put_user() in kernel/sys.c and
# fs/read_write.c) keeps its untag site. The objects are
# compiled after each patch that touches one of their sources or headers
# (x86_64, the guest configuration without debug info, tagging built in
# as series-check builds it), in a scratch worktree of build/linux-upstream
# (build/untag-bisect), and the sites are counted: exception-table entries
# whose data word's low byte is EX_TYPE_UNTAG_TRACE, as the tree at that
# patch defines it (the UD1 a site traps at while the event is on). The
# count of each object
# must be the same at every patch. UNTAG_BISECT_SERIES=DIR checks
# the series in DIR (a directory per series, as kernel/series/) instead.
# Host only; a few minutes.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

series=${UNTAG_BISECT_SERIES:-$top/kernel/series}
up=$top/build/linux-upstream
wt=$top/build/untag-bisect
objs="lib/strncpy_from_user.o lib/strnlen_user.o kernel/sys.o fs/read_write.o"

if [ ! -d "$up/.git" ] || [ ! -f build/linux/.config ]; then
	ok 1 "build/linux-upstream and build/linux/.config exist (make kernel)"
	tap_done
	exit
fi
mapfile -t patches < <(ls "$series"/*/[0-9]*.patch)
first=
for i in "${!patches[@]}"; do
	case ${patches[$i]} in *tagged_addr_untag-tracepoint.patch) first=$i ;; esac
done
if [ -z "$first" ]; then
	ok 1 "the series has the patch that adds tagged_addr_untag"
	tap_done
	exit
fi

if [ ! -d "$wt" ]; then
	git -C "$up" worktree prune
	git -C "$up" worktree add -q --detach "$wt" refs/tags/upstream
fi
git -C "$wt" am --abort > /dev/null 2>&1
git -C "$wt" reset -q --hard refs/tags/upstream
log=$top/build/logs/untag-bisect.log
mkdir -p "$(dirname "$log")"
: > "$log"
apply()	# apply PATCH: git am it onto the worktree
{
	git -C "$wt" am -q --keep-cr "$1" >> "$log" 2>&1 ||
		{ git -C "$wt" am --abort > /dev/null 2>&1; return 1; }
}
# The loop's own status would be 0 after a break: keep apply's.
st=0
for ((i = 0; i < first; i++)); do
	apply "${patches[$i]}" || { st=1; break; }
done
ok $st "patches 1-$first apply" "${patches[$i]#"$series"/} does not apply; see $log"
if [ $st != 0 ]; then
	tap_done
	exit
fi

if ! cmp -s build/linux/.config "$wt/.tagtrace-bisect-base"; then
	cp build/linux/.config "$wt/.config"
	cp build/linux/.config "$wt/.tagtrace-bisect-base"
	"$wt/scripts/config" --file "$wt/.config" --disable DEBUG_INFO \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_BTF \
		--enable DEBUG_INFO_NONE --disable CPU_MITIGATIONS --enable ADDRESS_MASKING
fi

# sites: "OBJ=COUNT ..." for the objects, freshly built.
sites()
{
	local o n type

	type=$(awk '$2 == "EX_TYPE_UNTAG_TRACE" { print $3 }' \
		"$wt/arch/x86/include/asm/extable_fixup_types.h")
	[ -n "$type" ] || return 1
	make -C "$wt" -s olddefconfig >> "$log" 2>&1 &&
		CCACHE_DIR=${SERIES_CCACHE_DIR:-/var/cache/tagtrace/ccache-series} \
		make -C "$wt" -j"$(nproc)" CC="ccache gcc" $objs >> "$log" 2>&1 || return 1
	for o in $objs; do
		objcopy -O binary --only-section=__ex_table "$wt/$o" "$wt/.ex_table" &&
			n=$(od -An -v -tu4 -w12 "$wt/.ex_table" | awk -v t="$type" '$3 % 256 == t' | wc -l) ||
			return 1
		printf '%s=%s ' "$o" "$n"
	done
}

# deps: every file the objects were built from, one a line.
deps()
{
	local o

	for o in $objs; do
		echo "${o%.o}.c"
		awk '/^deps_/ { on = 1; next } on && /^  / { if ($1 !~ /^[$]/) print $1; next } on { exit }' \
			"$wt/$(dirname "$o")/.$(basename "$o").cmd"
	done | sort -u
}

# touches PATCH: does it change a file one of the objects is built from?
touches()
{
	sed -n 's|^+++ b/||p' "$1" | sort -u | comm -12 - "$wt/.tagtrace-bisect-deps" |
		grep -q .
}

want=
for ((i = first; i < ${#patches[@]}; i++)); do
	p=${patches[$i]}
	name=$(basename "$p" .patch)
	if ! apply "$p"; then
		ok 1 "$name applies" "see $log"
		break
	fi
	if [ -n "$want" ] && ! touches "$p"; then
		echo "# $name: touches none of the objects' sources"
		continue
	fi
	got=$(sites) || { ok 1 "$name: the objects build" "see $log"; break; }
	deps > "$wt/.tagtrace-bisect-deps"
	echo "# $name: $got"
	if [ -z "$want" ]; then
		want=$got
		case $got in
		*=0\ *) ok 1 "$name adds an untag hook to every object: $got" ;;
		*) ok 0 "$name adds an untag hook to every object" ;;
		esac
		continue
	fi
	is "$got" "$want" "$name: every user-limit check keeps its untag hook"
done
tap_done
