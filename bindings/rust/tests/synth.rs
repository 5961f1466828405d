// SPDX-License-Identifier: Apache-2.0 OR MIT
//! The constraint writer against `cuzk synth`: for circuits compiled by
//! circom (and one from `cuzk gen-circuit`, written in circom's format), the
//! buffer the writer filled holds exactly the bytes of the witness file
//! `cuzk synth` writes for the same .r1cs and .wtns.  Then the writer's own
//! errors.

#[macro_use]
mod common;

use std::fs;
use std::path::Path;

use common::{cuzk, read_r1cs, read_wtns, Env, Scratch};
use cuzk::{Buffer, ConstraintWriter, Dims, ErrorKind, Fr, Variable};

fn same_bytes_as_synth(env: &Env, dir: &Scratch, r1cs: &Path, wtns: &Path) {
    let circuit = read_r1cs(r1cs);
    let z = read_wtns(wtns);
    let out = dir.path("synth.witness");
    cuzk(env, &["synth", "--r1cs", r1cs.to_str().unwrap(), "--wtns", wtns.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let file = fs::read(&out).unwrap();

    let mut buf = Buffer::alloc(None, &circuit.dims(1)).unwrap();
    // Garbage first: the writer must not rely on a fresh buffer's zeroes.
    {
        let p = buf.partition_mut(0).unwrap();
        p.a_aux_density.iter_mut().for_each(|w| *w = !0);
        p.b_input_density.iter_mut().for_each(|w| *w = !0);
        p.b_aux_density.iter_mut().for_each(|w| *w = !0);
    }
    let mut w = ConstraintWriter::new(buf.partition_mut(0).unwrap()).unwrap();
    circuit.write(&mut w, &z).unwrap();
    w.finish().unwrap();
    let bytes = buf.as_bytes();
    assert!(bytes.len() >= file.len());
    if let Some(at) = (0..file.len()).find(|&i| bytes[i] != file[i]) {
        panic!("{}: the writer's buffer differs from cuzk synth's file at byte {} of {}", r1cs.display(), at, file.len());
    }
    assert!(bytes[file.len()..].iter().all(|&b| b == 0), "bytes past the layout");
    let d = circuit.dims(1);
    assert!(file.len() as u64 >= 64 + 64 + d.partition_bytes() - 64 * 8, "partition_bytes is an upper bound");
    assert!(file.len() as u64 <= 64 + 64 + d.partition_bytes());
}

#[test]
fn circom_circuits_give_cuzk_synth_bytes() {
    let env = env_or_return!("circom_circuits_give_cuzk_synth_bytes");
    let dir = Scratch::new("synth");
    for name in ["mulchain", "bits"] {
        let r1cs = env.fixtures.join(format!("{}.r1cs", name));
        let wtns = env.fixtures.join(format!("{}.wtns", name));
        same_bytes_as_synth(&env, &dir, &r1cs, &wtns);
    }
    // A larger one from the project's generator, in circom's format.
    let (r1cs, wtns) = (dir.path("g.r1cs"), dir.path("g.wtns"));
    cuzk(
        &env,
        &["gen-circuit", "--log-constraints", "12", "--inputs", "5", "--r1cs", r1cs.to_str().unwrap(), "--wtns", wtns.to_str().unwrap()],
    );
    same_bytes_as_synth(&env, &dir, &r1cs, &wtns);
}

/// A tiny circuit without files: x·x = y, y public.
fn square(dims_aux: u64, dims_rows: u64) -> Buffer {
    Buffer::alloc(None, &Dims::for_circuit(dims_rows, 2, dims_aux, 1)).unwrap()
}

#[test]
fn writer_values_and_densities() {
    let mut buf = square(2, 2);
    let mut w = ConstraintWriter::new(buf.partition_mut(0).unwrap()).unwrap();
    let y = w.alloc_input(Fr::from_u64(9)).unwrap();
    let x = w.alloc_aux(Fr::from_u64(3)).unwrap();
    let t = w.alloc_aux(Fr::from_u64(5)).unwrap();
    assert_eq!((y, x, t), (Variable::Input(1), Variable::Aux(0), Variable::Aux(1)));
    w.enforce([(x, Fr::ONE)], [(x, Fr::ONE)], [(y, Fr::ONE)]).unwrap();
    // (2x + 1)·(1) = t + 2: a, b and c evaluated, y in nothing's B
    w.enforce([(x, Fr::from_u64(2)), (Variable::ONE, Fr::ONE)], [(Variable::ONE, Fr::ONE)], [(t, Fr::ONE), (Variable::ONE, Fr::from_u64(2))])
        .unwrap();
    assert_eq!(w.value(x), Some(Fr::from_u64(3)));
    assert_eq!(w.value(Variable::Aux(7)), None);
    w.finish().unwrap();
    let p = buf.partition_mut(0).unwrap();
    assert_eq!(p.a.to_vec(), vec![Fr::from_u64(3), Fr::from_u64(7), Fr::ONE, Fr::from_u64(9)]);
    assert_eq!(p.b.to_vec(), vec![Fr::from_u64(3), Fr::ONE, Fr::ZERO, Fr::ZERO]);
    assert_eq!(p.c.to_vec(), vec![Fr::from_u64(9), Fr::from_u64(7), Fr::ZERO, Fr::ZERO]);
    assert_eq!(p.input.to_vec(), vec![Fr::ONE, Fr::from_u64(9)]);
    assert_eq!(p.a_aux_density.to_vec(), vec![0b01]);
    assert_eq!(p.b_aux_density.to_vec(), vec![0b01]);
    assert_eq!(p.b_input_density.to_vec(), vec![0b01]);
}

#[test]
fn writer_errors() {
    let mut buf = square(1, 1);
    let mut w = ConstraintWriter::new(buf.partition_mut(0).unwrap()).unwrap();
    let x = w.alloc_aux(Fr::from_u64(3)).unwrap();
    assert_eq!(w.alloc_aux(Fr::ONE).unwrap_err().kind(), ErrorKind::Mismatch);
    let e = w.enforce([(Variable::Aux(1), Fr::ONE)], [], []).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("Aux(1) is not allocated"), "{}", e);
    assert_eq!(w.enforce([(Variable::Input(1), Fr::ONE)], [], []).unwrap_err().kind(), ErrorKind::InvalidArgument);
    w.alloc_input(Fr::from_u64(9)).unwrap();
    assert_eq!(w.alloc_input(Fr::ONE).unwrap_err().kind(), ErrorKind::Mismatch);
    w.enforce([(x, Fr::ONE)], [(x, Fr::ONE)], [(Variable::Input(1), Fr::ONE)]).unwrap();
    let e = w.enforce([], [], []).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Mismatch);
    assert!(e.message().contains("more than the buffer's 1 constraints"), "{}", e);
    w.finish().unwrap();

    let mut buf = square(2, 1);
    let w = ConstraintWriter::new(buf.partition_mut(0).unwrap()).unwrap();
    let e = w.finish().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Mismatch);
    assert!(e.message().contains("the circuit has 1 inputs, 0 aux variables and 0 constraints; the buffer holds 2, 2 and 1"), "{}", e);
    assert_eq!(format!("{}", e).rsplit(' ').next(), Some("(mismatch)"));
}

#[test]
fn partitions_are_disjoint_and_sendable() {
    let dims = Dims::for_circuit(3, 2, 4, 3);
    let mut buf = Buffer::alloc(None, &dims).unwrap();
    let parts = buf.partitions_mut().unwrap();
    assert_eq!(parts.len(), 3);
    std::thread::scope(|s| {
        for (i, p) in parts.into_iter().enumerate() {
            s.spawn(move || {
                for v in p.aux.iter_mut() {
                    *v = Fr::from_u64(i as u64 + 1);
                }
            });
        }
    });
    for i in 0..3u32 {
        let p = buf.partition_mut(i).unwrap();
        assert!(p.aux.iter().all(|v| *v == Fr::from_u64(i as u64 + 1)));
    }
    assert_eq!(buf.partition_mut(3).err().map(|e| e.kind()), Some(ErrorKind::InvalidArgument));
    let e = Buffer::alloc(None, &Dims { num_partitions: 0, ..dims }).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn abi_matches_the_header() {
    // include/cuzk.h's sizes and offsets (src/client/test_abi.c asserts the same).
    assert_eq!(cuzk::abi_sizes(), [8 + 4 + 4 + 12 * 8 + 256 + 64 * 192, 48, 40, 96, 40, 56, 32]);
    // cuzk_connect_opts' flags, reserved0, reserved; cuzk_submit_opts' flags, trace_fd, reserved.
    assert_eq!(cuzk::abi_offsets(), [24, 28, 32, 0, 4, 8]);
    assert_eq!(ErrorKind::from_code(-14), ErrorKind::Unsupported);
    assert_eq!(ErrorKind::from_code(-17), ErrorKind::Busy);
    assert_eq!(ErrorKind::Busy.code(), 17);
    assert_eq!(ErrorKind::Seals.name(), "seals");
    assert_eq!(ErrorKind::from_code(99), ErrorKind::Other(99));
    assert_eq!(cuzk::Kind::from_name("snap-64g"), Some(cuzk::Kind::Snap64G));
    assert!(cuzk::Kind::Porep32G.params_file().starts_with("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0"));
}
