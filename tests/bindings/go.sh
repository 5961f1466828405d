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
. "$srcdir/tests/bindings/prepare.sh"
work=$top/tests/bindings/work-go
bindings_prepare "$go" "apt-get install golang-go" bindings/go/cuzk "$work"
export GOCACHE=$work/gocache GOPATH=$work/gopath GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local \
	GO111MODULE=on CGO_ENABLED=1 CGO_CFLAGS="-I$(cd "$srcdir/include" && pwd)" CGO_LDFLAGS="-L$libdir" \
	LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	CUZK_BIN=$top/src/cli/cuzk CUZKD_BIN=$top/src/daemon/cuzkd \
	CUZK_FIXTURES=$(cd "$srcdir/tests/bindings/fixtures" && pwd) CUZK_TEST_TMP=$scratch
"$go" version
cd "$work/src" || exit 1
"$go" vet ./... && "$go" test -count=1 -v ./... 2>&1
