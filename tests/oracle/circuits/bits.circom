// SPDX-License-Identifier: Apache-2.0 OR MIT
pragma circom 2.0.0;

// Bit decomposition and range checks with several public inputs: each value
// is split into 64 bits (b * (b - 1) = 0, then the weighted sum must match),
// and the public sum of the values is checked.  Most aux values are 0 or 1,
// as in the storage proofs cuzk serves.
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var lc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        lc += out[i] * e;
        e = e + e;
    }
    lc === in;
}

template RangeSum(k, n) {
    signal input v[k];
    signal input total;
    signal output bitsum;
    component dec[k];
    var s = 0;
    var ones = 0;
    for (var j = 0; j < k; j++) {
        dec[j] = Num2Bits(n);
        dec[j].in <== v[j];
        s += v[j];
        for (var i = 0; i < n; i++) {
            ones += dec[j].out[i];
        }
    }
    s === total;
    bitsum <== ones;
}

component main {public [v, total]} = RangeSum(5, 64);
