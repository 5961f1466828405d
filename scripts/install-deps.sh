#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Installs what building and testing cuzk needs on Debian 12 (as root).
# Safe to run again: apt skips what is already there.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential autoconf automake libtool pkgconf git ca-certificates
      liburing-dev libinih-dev libsystemd-dev
      clang libclang-rt-14-dev          # libFuzzer targets
      systemd systemd-container dbus    # the systemd tests boot a container
      debhelper dh-autoreconf dpkg-dev lintian fakeroot  # the Debian package
      jq procps psmisc
      ccache                            # test.sh: the package build reuses the main build's compilations
      rustc cargo golang-go)            # the Rust and Go bindings' tests (Debian 12: rustc 1.63, Go 1.19)
# Node runs the independent verifiers (tests/oracle); keep a node that is
# already installed (e.g. a newer one from elsewhere), else take Debian's.
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# nvcc, when NVIDIA's toolkit is installed, is not on PATH by default.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
	echo "note: nvcc found in /usr/local/cuda/bin; the GPU backend will be built" >&2
fi
