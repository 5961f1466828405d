// SPDX-License-Identifier: Apache-2.0 OR MIT
//! The scalar field of BLS12-381, r = 0x73eda753...00000001, as the witness
//! buffer holds it: four little-endian u64 limbs in Montgomery form
//! (x·2^256 mod r), the representation of blstrs' `Scalar` (blst_fr) and of
//! bellperson's assignments, so a scalar crosses over without conversion.
//!
//! Enough arithmetic to evaluate linear combinations (add, sub, neg, mul);
//! not constant time: witnesses are the prover's own data, not keys.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// r, least significant limb first.
const MODULUS: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];
/// -r^-1 mod 2^64.
const INV: u64 = 0xfffffffeffffffff;
/// 2^256 mod r: one in Montgomery form.
const R: [u64; 4] = [0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f];
/// 2^512 mod r: multiplying by it converts into Montgomery form.
const R2: [u64; 4] = [0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11];

/// An element of Fr, in Montgomery form; 32 bytes, the layout of one scalar
/// in a witness section.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Fr([u64; 4]);

#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + (borrow >> 63) as u128);
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + (b as u128) * (c as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// a < r (as integers).
fn below_modulus(a: &[u64; 4]) -> bool {
    for i in (0..4).rev() {
        if a[i] != MODULUS[i] {
            return a[i] < MODULUS[i];
        }
    }
    false
}

/// a - r if a >= r (a < 2r).
#[inline(always)]
fn reduce_once(a: [u64; 4], carry: u64) -> [u64; 4] {
    let (d0, b) = sbb(a[0], MODULUS[0], 0);
    let (d1, b) = sbb(a[1], MODULUS[1], b);
    let (d2, b) = sbb(a[2], MODULUS[2], b);
    let (d3, b) = sbb(a[3], MODULUS[3], b);
    // The subtraction borrowed past the carry word: a < r, keep a.
    let (_, b) = sbb(carry, 0, b);
    if b != 0 {
        a
    } else {
        [d0, d1, d2, d3]
    }
}

/// Montgomery multiplication (CIOS): a·b·2^-256 mod r.
#[inline]
fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut t = [0u64; 6];
    for i in 0..4 {
        let mut carry = 0;
        for j in 0..4 {
            let (lo, hi) = mac(t[j], a[j], b[i], carry);
            t[j] = lo;
            carry = hi;
        }
        let (lo, hi) = adc(t[4], carry, 0);
        t[4] = lo;
        t[5] = hi;
        let m = t[0].wrapping_mul(INV);
        let (_, mut carry) = mac(t[0], m, MODULUS[0], 0);
        for j in 1..4 {
            let (lo, hi) = mac(t[j], m, MODULUS[j], carry);
            t[j - 1] = lo;
            carry = hi;
        }
        let (lo, hi) = adc(t[4], carry, 0);
        t[3] = lo;
        t[4] = t[5] + hi;
    }
    reduce_once([t[0], t[1], t[2], t[3]], t[4])
}

impl Fr {
    pub const ZERO: Fr = Fr([0; 4]);
    pub const ONE: Fr = Fr(R);

    /// From four little-endian limbs of an integer below r; None otherwise.
    pub fn from_canonical(limbs: [u64; 4]) -> Option<Fr> {
        if below_modulus(&limbs) {
            Some(Fr(mont_mul(&limbs, &R2)))
        } else {
            None
        }
    }

    /// From 32 little-endian bytes of an integer below r (blstrs'
    /// `Scalar::to_bytes_le`, circom's .wtns values).
    pub fn from_le_bytes(bytes: &[u8; 32]) -> Option<Fr> {
        Fr::from_canonical(limbs_of(bytes))
    }

    /// From limbs already in Montgomery form (blst_fr's `l`, bellperson's
    /// assignment as blstrs holds it); None when they are not below r.
    pub fn from_montgomery(limbs: [u64; 4]) -> Option<Fr> {
        if below_modulus(&limbs) {
            Some(Fr(limbs))
        } else {
            None
        }
    }

    pub fn from_u64(v: u64) -> Fr {
        Fr(mont_mul(&[v, 0, 0, 0], &R2))
    }

    /// The Montgomery limbs, as the witness buffer stores them.
    pub fn montgomery_limbs(&self) -> [u64; 4] {
        self.0
    }

    /// The integer, least significant limb first.
    pub fn to_canonical(&self) -> [u64; 4] {
        mont_mul(&self.0, &[1, 0, 0, 0])
    }

    pub fn to_le_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, l) in self.to_canonical().iter().enumerate() {
            out[8 * i..8 * i + 8].copy_from_slice(&l.to_le_bytes());
        }
        out
    }

    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }

    pub fn square(&self) -> Fr {
        *self * *self
    }
}

fn limbs_of(bytes: &[u8; 32]) -> [u64; 4] {
    let mut l = [0u64; 4];
    for (i, limb) in l.iter_mut().enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
        *limb = u64::from_le_bytes(w);
    }
    l
}

impl Add for Fr {
    type Output = Fr;
    #[inline]
    fn add(self, o: Fr) -> Fr {
        let (d0, c) = adc(self.0[0], o.0[0], 0);
        let (d1, c) = adc(self.0[1], o.0[1], c);
        let (d2, c) = adc(self.0[2], o.0[2], c);
        let (d3, c) = adc(self.0[3], o.0[3], c);
        Fr(reduce_once([d0, d1, d2, d3], c))
    }
}

impl Neg for Fr {
    type Output = Fr;
    fn neg(self) -> Fr {
        if self.is_zero() {
            return self;
        }
        let (d0, b) = sbb(MODULUS[0], self.0[0], 0);
        let (d1, b) = sbb(MODULUS[1], self.0[1], b);
        let (d2, b) = sbb(MODULUS[2], self.0[2], b);
        let (d3, _) = sbb(MODULUS[3], self.0[3], b);
        Fr([d0, d1, d2, d3])
    }
}

impl Sub for Fr {
    type Output = Fr;
    fn sub(self, o: Fr) -> Fr {
        self + (-o)
    }
}

impl Mul for Fr {
    type Output = Fr;
    #[inline]
    fn mul(self, o: Fr) -> Fr {
        Fr(mont_mul(&self.0, &o.0))
    }
}

impl AddAssign for Fr {
    fn add_assign(&mut self, o: Fr) {
        *self = *self + o;
    }
}

impl SubAssign for Fr {
    fn sub_assign(&mut self, o: Fr) {
        *self = *self - o;
    }
}

impl MulAssign for Fr {
    fn mul_assign(&mut self, o: Fr) {
        *self = *self * o;
    }
}

impl fmt::Debug for Fr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.to_canonical();
        write!(f, "Fr(0x{:016x}{:016x}{:016x}{:016x})", c[3], c[2], c[1], c[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// r - 1 = -1.
    fn minus_one() -> Fr {
        let mut m = MODULUS;
        m[0] -= 1;
        Fr::from_canonical(m).unwrap()
    }

    #[test]
    fn small_numbers() {
        let two = Fr::from_u64(2);
        let three = Fr::from_u64(3);
        assert_eq!(two + three, Fr::from_u64(5));
        assert_eq!(two * three, Fr::from_u64(6));
        assert_eq!(two - three, minus_one());
        assert_eq!(Fr::from_u64(1), Fr::ONE);
        assert_eq!(Fr::ONE.to_canonical(), [1, 0, 0, 0]);
        assert_eq!(Fr::from_u64(7).to_canonical(), [7, 0, 0, 0]);
    }

    #[test]
    fn wraps_at_the_modulus() {
        assert_eq!(minus_one() + Fr::ONE, Fr::ZERO);
        assert_eq!(minus_one() * minus_one(), Fr::ONE);
        assert_eq!(-Fr::ZERO, Fr::ZERO);
        assert!(Fr::from_canonical(MODULUS).is_none());
        assert!(Fr::from_montgomery(MODULUS).is_none());
    }

    /// (a + b)·c = a·c + b·c and a·a^(r-2) = 1 on pseudo-random elements.
    #[test]
    fn field_laws() {
        let mut x = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            let mut l = [0u64; 4];
            for limb in l.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *limb = x;
            }
            l[3] &= 0x3fffffffffffffff;
            Fr::from_canonical(l).unwrap()
        };
        for _ in 0..50 {
            let (a, b, c) = (next(), next(), next());
            assert_eq!((a + b) * c, a * c + b * c);
            assert_eq!(a - b + b, a);
            assert_eq!(Fr::from_le_bytes(&a.to_le_bytes()), Some(a));
            // a^(r-2) by square and multiply
            let mut e = MODULUS;
            e[0] -= 2;
            let mut acc = Fr::ONE;
            for i in (0..256).rev() {
                acc = acc.square();
                if (e[i / 64] >> (i % 64)) & 1 == 1 {
                    acc *= a;
                }
            }
            assert_eq!(acc * a, Fr::ONE);
        }
    }
}
