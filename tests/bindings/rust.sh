#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The Rust crate (bindings/rust) against this build's libcuzk, cuzk and
# cuzkd: `cargo test --offline` (unit tests, tests/synth.rs: the constraint
# writer gives cuzk synth's bytes for circom circuits; tests/daemon.rs:
# proofs through a test cuzkd that verify, typed errors), the example built.
# Skips, saying so, without cargo or in the sanitizer build.  $CARGO
# overrides the cargo command.
set -u
srcdir=${srcdir:-.}
top=$(pwd)
cargo=${CARGO:-cargo}
. "$srcdir/tests/bindings/prepare.sh"
work=$top/tests/bindings/work-rust
bindings_prepare "$cargo" "apt-get install cargo rustc" bindings/rust "$work"
rm -rf "$work/src/target" "$work/src/Cargo.lock"
"$cargo" --version && rustc --version
CARGO_TARGET_DIR=$work/target CARGO_HOME=$work/cargo-home CUZK_LIB_DIR=$libdir \
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
CUZK_BIN=$top/src/cli/cuzk CUZKD_BIN=$top/src/daemon/cuzkd \
CUZK_FIXTURES=$(cd "$srcdir/tests/bindings/fixtures" && pwd) CUZK_TEST_TMP=$scratch \
	"$cargo" test --offline --manifest-path "$work/src/Cargo.toml" 2>&1
