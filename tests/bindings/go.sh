#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The Go package (bindings/go/cuzk) against this build's libcuzk, cuzk and
# cuzkd: go vet, then go test (a witness written in place, proved through a
# test cuzkd and verified; Prove from several goroutines; contexts; kinds;
# typed errors).  Offline: no module is downloaded (GOPROXY=off).  Skips,
# saying so, without go or in the sanitizer build.  $GO overrides the go
# command.
set -u
srcdir=${srcdir:-.}
top=$(pwd)
go=${GO:-go}
command -v "$go" >/dev/null 2>&1 ||
	{ echo "SKIP: go is not installed (Debian: apt-get install golang-go): the Go bindings are not tested"; exit 77; }
if [ -n "${CUZK_SANITIZED:-}" ]; then
	echo "SKIP: sanitizer build: an ASan libcuzk needs the ASan runtime loaded first, which a Go test binary does not do (the main build tests the bindings)"
	exit 77
fi
libdir=$top/src/client/.libs
[ -e "$libdir/libcuzk.so" ] || { echo "FAIL: $libdir/libcuzk.so is not built"; exit 1; }
work=$top/tests/bindings/work-go
rm -rf "$work/cuzk" "$work/tmp"
mkdir -p "$work/tmp" || exit 1
cp -R "$srcdir/bindings/go/cuzk" "$work/cuzk" && chmod -R u+w "$work/cuzk" || exit 1
include=$(cd "$srcdir/include" && pwd)
fixtures=$(cd "$srcdir/tests/bindings/fixtures" && pwd)
export GOCACHE=$work/gocache GOPATH=$work/gopath GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local \
	GO111MODULE=on CGO_ENABLED=1 CGO_CFLAGS="-I$include" CGO_LDFLAGS="-L$libdir" \
	LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	CUZK_BIN=$top/src/cli/cuzk CUZKD_BIN=$top/src/daemon/cuzkd CUZK_FIXTURES=$fixtures CUZK_TEST_TMP=$work/tmp
"$go" version
cd "$work/cuzk" || exit 1
"$go" vet ./... && "$go" test -count=1 -v ./... 2>&1
