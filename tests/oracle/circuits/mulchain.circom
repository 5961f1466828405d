// SPDX-License-Identifier: Apache-2.0 OR MIT
pragma circom 2.0.0;

// A chain of multiplications: out = x^(2^n) * y, with x and y private and
// the output public.  The simplest shape: one constraint per step, aux values
// that look random.
template MulChain(n) {
    signal input x;
    signal input y;
    signal output out;
    signal acc[n + 1];
    acc[0] <== x;
    for (var i = 0; i < n; i++) {
        acc[i + 1] <== acc[i] * acc[i];
    }
    out <== acc[n] * y;
}

component main = MulChain(200);
