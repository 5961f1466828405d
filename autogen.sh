#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
