// SPDX-License-Identifier: Apache-2.0 OR MIT
pragma circom 2.0.0;

// A Poseidon-like round chain: s <- (s + c_i)^5 for n rounds, three
// constraints per round (square, fourth power, fifth power).  The start
// state and a round key are public inputs.
template X5Rounds(n) {
    signal input start;
    signal input key;
    signal input salt;
    signal output out;
    signal t[n];
    signal sq[n];
    signal qu[n];
    signal s[n + 1];
    s[0] <== start + salt;
    for (var i = 0; i < n; i++) {
        t[i] <== s[i] + key + i * 7 + 1;
        sq[i] <== t[i] * t[i];
        qu[i] <== sq[i] * sq[i];
        s[i + 1] <== qu[i] * t[i];
    }
    out <== s[n];
}

component main {public [start, key]} = X5Rounds(100);
