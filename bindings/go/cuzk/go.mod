// SPDX-License-Identifier: Apache-2.0 OR MIT
module cuzk.local/cuzk

go 1.19
