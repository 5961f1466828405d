// SPDX-License-Identifier: Apache-2.0 OR MIT
module cuzk.dev/cuzk

go 1.19
