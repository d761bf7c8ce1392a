#!/bin/bash
# Install everything tagtrace needs on Debian 12, from Debian's archive only.
# Idempotent: a second run with everything present only checks and returns.
set -euo pipefail

. "$(dirname "$0")/versions.sh"

pkgs=(
	build-essential make gcc bc bison flex cpio kmod rsync xz-utils
	libelf-dev zlib1g-dev libssl-dev dwarves ccache python3
	clang llvm libbpf-dev bpftool bpftrace
	# HWASan: clang-14 and its x86_64 runtime (libclang_rt.hwasan-x86_64)
	clang-14 libclang-rt-14-dev
	# libc's own symbols for user stacks (tagtrace trace --stack, and
	# bpftrace's ustack it is checked against)
	libc6-dbg
	prometheus-node-exporter prometheus iproute2
	"linux-source-6.12=$LINUX_SOURCE_VERSION"
	dpkg-dev ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev
	libattr1-dev libcap-ng-dev libfdt-dev
	seabios qemu-system-data
	gcc-aarch64-linux-gnu
	# the arm64 rig (tests/vm/run --arch arm64): QEMU's virt machine and
	# static arm64 test programs
	qemu-system-arm libc6-dev-arm64-cross
)

src=/etc/apt/sources.list.d/tagtrace-deb-src.sources
need_update=0
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb-src' /etc/apt/sources.list; then
	echo "deps: adding a deb-src entry ($src) so 'apt-get source qemu' works"
	cat > "$src" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	need_update=1
fi

missing=()
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"ii "*)
		[ "$name" = "$p" ] || [ "${have#ii }" = "$want" ] || missing+=("$p")
		;;
	*)	missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ] && [ $need_update -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi

# apt's and dpkg's progress go to a log: one line per step here, and the
# log's tail if a step fails.
log=$(cd "$(dirname "$0")/.." && pwd)/build/logs/deps.log
mkdir -p "$(dirname "$log")"
: > "$log"
step()
{
	local what=$1

	shift
	echo "deps: $what (log: $log)"
	if ! "$@" >> "$log" 2>&1; then
		echo "deps: $what failed; the end of $log:" >&2
		tail -n 20 "$log" | sed 's/^/    /' >&2
		exit 1
	fi
}

export DEBIAN_FRONTEND=noninteractive
step "updating the package lists" apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
	echo "packages to install: ${missing[*]}" >> "$log"
	step "installing ${#missing[@]} packages" \
		apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "deps: done"
