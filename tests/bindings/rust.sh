#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The Rust crate (bindings/rust) against this build's libcuzk, cuzk and
# cuzkd: `cargo test --offline` (unit tests, tests/synth.rs: the constraint
# writer gives cuzk synth's bytes for circom circuits; tests/daemon.rs:
# proofs through a test cuzkd that verify, typed errors), the example built.
# Skips, saying so, without cargo or in the sanitizer build.  The crate is
# copied into the build tree (cargo writes Cargo.lock next to Cargo.toml,
# and the source tree may be read-only, as in distcheck).  $CARGO overrides
# the cargo command.
set -u
srcdir=${srcdir:-.}
top=$(pwd)
cargo=${CARGO:-cargo}
command -v "$cargo" >/dev/null 2>&1 ||
	{ echo "SKIP: cargo is not installed (Debian: apt-get install cargo rustc): the Rust bindings are not tested"; exit 77; }
if [ -n "${CUZK_SANITIZED:-}" ]; then
	echo "SKIP: sanitizer build: an ASan libcuzk needs the ASan runtime loaded first, which a Rust test binary does not do (the main build tests the bindings)"
	exit 77
fi
libdir=$top/src/client/.libs
[ -e "$libdir/libcuzk.so" ] || { echo "FAIL: $libdir/libcuzk.so is not built"; exit 1; }
work=$top/tests/bindings/work-rust
rm -rf "$work/crate" "$work/tmp"
mkdir -p "$work/tmp" || exit 1
cp -R "$srcdir/bindings/rust" "$work/crate" && chmod -R u+w "$work/crate" || exit 1
rm -rf "$work/crate/target" "$work/crate/Cargo.lock"
"$cargo" --version && rustc --version
CARGO_TARGET_DIR=$work/target CARGO_HOME=$work/cargo-home CUZK_LIB_DIR=$libdir \
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
CUZK_BIN=$top/src/cli/cuzk CUZKD_BIN=$top/src/daemon/cuzkd \
CUZK_FIXTURES=$(cd "$srcdir/tests/bindings/fixtures" && pwd) CUZK_TEST_TMP=$work/tmp \
	"$cargo" test --offline --manifest-path "$work/crate/Cargo.toml" 2>&1
