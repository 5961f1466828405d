# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sourced by rust.sh and go.sh: what both need before their toolchain runs.
# bindings_prepare TOOL HINT SRC WORK: exits 77 (a SKIP line) without TOOL or
# in the sanitizer build, 1 without this build's libcuzk; otherwise copies
# SRC (under the source tree) to WORK/src, writable (the source tree may be
# read-only, as in distcheck, and the toolchains write next to their
# manifests), makes a scratch directory for the tests, and sets libdir and
# scratch.  The scratch directory is under $TMPDIR (default /tmp), not under
# WORK, and removed on exit: the tests bind Unix sockets there, whose paths
# must fit sun_path's 108 bytes, and a build tree can be deep (distcheck's
# _build/sub under CI's checkout made them 113).
bindings_prepare() {
	tool=$1 hint=$2 src=$3 work=$4
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "SKIP: $tool is not installed (Debian: $hint): the bindings in $src are not tested"; exit 77; }
	if [ -n "${CUZK_SANITIZED:-}" ]; then
		echo "SKIP: sanitizer build: an ASan libcuzk needs the ASan runtime loaded first, which a $tool test binary does not do (the main build tests $src)"
		exit 77
	fi
	libdir=$top/src/client/.libs
	[ -e "$libdir/libcuzk.so" ] || { echo "FAIL: $libdir/libcuzk.so is not built"; exit 1; }
	rm -rf "$work/src" "$work/tmp"
	mkdir -p "$work" && scratch=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bind.XXXXXX") || exit 1
	trap 'rm -rf "$scratch"' EXIT
	cp -R "$srcdir/$src" "$work/src" && chmod -R u+w "$work/src" || exit 1
}
