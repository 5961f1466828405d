#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Every tracked file that can hold a comment names its licence in its first
# three lines; data files (JSON, fixtures) and the documents are exempt.
# Exit 77 (skip) outside a git checkout, where "tracked" means nothing.
cd "$(dirname "$0")/.." || exit 2
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
missing=0
for f in $(git ls-files); do
	case $f in
	*.json | *.md | *.ptau | *.r1cs | *.wtns | LICENSE-* | debian/changelog | debian/copyright | debian/source/* | \
		debian/not-installed | tests/systemd/lintian-accepted | .gitignore | */.gitignore) continue ;;
	esac
	[ -f "$f" ] || continue
	if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0 OR MIT'; then
		echo "no SPDX line: $f"
		missing=$((missing + 1))
	fi
done
[ -f LICENSE-APACHE ] && [ -f LICENSE-MIT ] || { echo "LICENSE-APACHE or LICENSE-MIT missing"; exit 1; }
[ "$missing" -eq 0 ] || { echo "$missing file(s) without an SPDX line"; exit 1; }
echo "every source file names Apache-2.0 OR MIT"
