#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# docs/CLIENTS.md shows the bindings' examples as they are in the tree: each
# code block after a line "<!-- example: PATH -->" must equal the file PATH,
# which the Rust and Go tests build.  No toolchain needed.
set -u
srcdir=${srcdir:-.}
doc=$srcdir/docs/CLIENTS.md
fails=0 n=0
for path in $(sed -n 's/^<!-- example: \(.*\) -->$/\1/p' "$doc"); do
	n=$((n + 1))
	# the lines between the fence after the marker and the closing fence
	awk -v want="<!-- example: $path -->" '
		$0 == want { found = 1; next }
		found == 1 && /^```/ { found = 2; next }
		found == 2 && /^```$/ { exit }
		found == 2 { print }' "$doc" >"${TMPDIR:-/tmp}/cuzk-doc-example.$$"
	if cmp -s "${TMPDIR:-/tmp}/cuzk-doc-example.$$" "$srcdir/$path"; then
		echo "ok: docs/CLIENTS.md shows $path as it is"
	else
		echo "FAIL: docs/CLIENTS.md's copy of $path differs from the file:"
		diff "${TMPDIR:-/tmp}/cuzk-doc-example.$$" "$srcdir/$path" | head -n 20
		fails=$((fails + 1))
	fi
	rm -f "${TMPDIR:-/tmp}/cuzk-doc-example.$$"
done
[ "$n" -ge 2 ] || { echo "FAIL: docs/CLIENTS.md has $n example markers, expected 2"; exit 1; }
[ "$fails" -eq 0 ]
