#!/bin/bash
# make install DESTDIR=...: the binary and the man page land where the
# README says, and man(1) renders the page without a warning. Host only:
# nothing here runs tagtrace. TAP.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

out=$(make --no-print-directory install DESTDIR="$dest" PREFIX=/usr 2>&1)
ok $? "make install DESTDIR=... PREFIX=/usr succeeds" "$out"
bin=$dest/usr/sbin/tagtrace
page=$dest/usr/share/man/man8/tagtrace.8
[ -x "$bin" ] && cmp -s "$bin" build/tool/tagtrace
ok $? "the binary is \$DESTDIR/usr/sbin/tagtrace, executable, the one built" \
	"$(ls -l "$bin" 2>&1)"
[ "$(stat -c %a "$page" 2>&1)" = 644 ] && cmp -s "$page" doc/tagtrace.8
ok $? "the man page is \$DESTDIR/usr/share/man/man8/tagtrace.8, mode 644" \
	"$(ls -l "$page" 2>&1)"
warn=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)
is "$warn" "" "man -l renders it without warnings"
text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
missing=
for s in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT OPENMETRICS \
	"EVENT SOURCES AND FALLBACKS" "EXIT STATUS" REQUIREMENTS EXAMPLES; do
	grep -q "^$s\$" <<< "$text" || missing="$missing '$s'"
done
is "$missing" "" "the rendered page has every section"
version=$(sed -n 's/^#define TT_VERSION "\(.*\)"/\1/p' src/cli.h)
grep -q "tagtrace $version" <<< "$text"
ok $? "the page names the built version ($version)"
long=$(python3 -c 'import sys; print("".join(l for l in sys.stdin if len(l.rstrip("\n")) > 80), end="")' <<< "$text")
is "$long" "" "rendered lines fit 80 columns"
tap_done
