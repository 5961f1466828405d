// SPDX-License-Identifier: Apache-2.0 OR MIT
//! A client of cuzkd, the Groth16 proving service for BLS12-381, over
//! libcuzk (`include/cuzk.h`).  No dependencies: the crate links libcuzk
//! and builds offline.
//!
//! A witness goes from the circuit into the daemon without a copy: the
//! client allocates a [`Buffer`] (a memfd libcuzk maps), writes each
//! partition's sections in place, and submits it; the daemon reads the same
//! pages.  [`ConstraintWriter`] synthesizes a circuit straight into a
//! partition, with bellperson's semantics.
//!
//! ```no_run
//! use cuzk::{Client, ConstraintWriter, Dims, Fr, Kind, Request, Variable};
//!
//! # fn main() -> cuzk::Result<()> {
//! let client = Client::connect("/run/cuzk/cuzkd.sock")?;
//! // x · x = y, with y public: 1 constraint, 2 inputs (1 and y), 1 aux.
//! let mut buf = client.alloc(&Dims::for_circuit(1, 2, 1, 1))?;
//! let mut w = ConstraintWriter::new(buf.partition_mut(0)?)?;
//! let y = w.alloc_input(Fr::from_u64(9))?;
//! let x = w.alloc_aux(Fr::from_u64(3))?;
//! w.enforce([(x, Fr::ONE)], [(x, Fr::ONE)], [(y, Fr::ONE)])?;
//! w.finish()?;
//! let proofs = client.prove(&buf, &Request::new("my-circuit.params"))?;
//! # let _ = (proofs, Kind::Porep32G, Variable::ONE);
//! # Ok(())
//! # }
//! ```
//!
//! # bellperson
//!
//! A bellperson `ConstraintSystem` over the writer is a thin wrapper: the
//! variables map one to one, scalars cross as their Montgomery limbs (what
//! blstrs' `Scalar` holds), and each linear combination is iterated, not
//! collected.  This crate does not depend on bellperson; an integrator adds:
//!
//! ```ignore
//! use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
//! use blstrs::Scalar;
//!
//! pub struct CuzkCs<'a>(pub cuzk::ConstraintWriter<'a>);
//!
//! fn fr(s: &Scalar) -> cuzk::Fr {
//!     // blstrs keeps scalars in Montgomery form (blst_fr): no conversion.
//!     cuzk::Fr::from_montgomery(blst::blst_fr::from(*s).l).expect("a reduced scalar")
//! }
//! fn var(v: Variable) -> cuzk::Variable {
//!     match v.get_unchecked() {
//!         Index::Input(i) => cuzk::Variable::Input(i),
//!         Index::Aux(i) => cuzk::Variable::Aux(i),
//!     }
//! }
//! fn terms(lc: &LinearCombination<Scalar>) -> impl Iterator<Item = (cuzk::Variable, cuzk::Fr)> + '_ {
//!     lc.iter().map(|(v, c)| (var(v), fr(c)))
//! }
//! fn synthesis_error(_: cuzk::Error) -> SynthesisError {
//!     SynthesisError::Unsatisfiable
//! }
//!
//! impl<'a> ConstraintSystem<Scalar> for CuzkCs<'a> {
//!     type Root = Self;
//!
//!     fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
//!     where F: FnOnce() -> Result<Scalar, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
//!         match self.0.alloc_aux(fr(&f()?)).map_err(synthesis_error)? {
//!             cuzk::Variable::Aux(i) => Ok(Variable::new_unchecked(Index::Aux(i))),
//!             cuzk::Variable::Input(_) => unreachable!(),
//!         }
//!     }
//!
//!     fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
//!     where F: FnOnce() -> Result<Scalar, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
//!         match self.0.alloc_input(fr(&f()?)).map_err(synthesis_error)? {
//!             cuzk::Variable::Input(i) => Ok(Variable::new_unchecked(Index::Input(i))),
//!             cuzk::Variable::Aux(_) => unreachable!(),
//!         }
//!     }
//!
//!     fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
//!     where A: FnOnce() -> AR, AR: Into<String>,
//!           LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
//!           LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
//!           LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar> {
//!         let (a, b, c) = (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
//!         // bellperson's enforce cannot fail; a shape error surfaces at finish().
//!         let _ = self.0.enforce(terms(&a), terms(&b), terms(&c));
//!     }
//!
//!     fn push_namespace<NR: Into<String>, N: FnOnce() -> NR>(&mut self, _: N) {}
//!     fn pop_namespace(&mut self) {}
//!     fn get_root(&mut self) -> &mut Self::Root { self }
//! }
//!
//! // Per partition: ConstraintWriter::new has allocated input 0, the constant 1,
//! // as bellperson's prover does before it calls synthesize; finish() adds the
//! // input rows bellperson's prover enforces after it.
//! //   let mut cs = CuzkCs(cuzk::ConstraintWriter::new(part)?);
//! //   circuit.synthesize(&mut cs)?;
//! //   cs.0.finish()?;
//! // then, all partitions written: client.prove(&buf, &Request::new(cuzk::Kind::Porep32G.name())).
//! ```
//!
//! # Timelines
//!
//! The daemon writes a request's timeline (Chrome trace-event JSON: every
//! partition's queue wait, parameter wait, uploads, NTT, MSMs, assembly and
//! verification; docs/OPERATIONS.md, "Timelines of requests") into a
//! memory file the client passes, when the connection asked for traces:
//!
//! ```no_run
//! # fn main() -> cuzk::Result<()> {
//! # let dims = cuzk::Dims::for_circuit(1, 2, 1, 1);
//! use cuzk::{Client, ConnectOptions, Request};
//!
//! let opts = ConnectOptions { trace: true, ..ConnectOptions::default() };
//! let client = Client::connect_with("/run/cuzk/cuzkd.sock", &opts)?;
//! let buf = client.alloc(&dims)?;
//! // ... write the witness ...
//! let t = client.prove_traced(&buf, &Request::new("porep-32g"))?;
//! if let Some(json) = &t.timeline {
//!     std::fs::write(format!("job-{}.json", t.job_id), json).expect("writing the timeline");
//! }
//! let proofs = t.completion.result?;
//! # let _ = proofs;
//! # Ok(())
//! # }
//! ```
//!
//! [`Client::submit_traced`] takes the file instead (a [`trace_file`], or
//! any memory file open for writing) and leaves reading it to the caller.
//!
//! # Threads
//!
//! A [`Client`] is shared by reference between threads; [`Client::prove`]
//! from several threads at once is the intended use.  A [`Buffer`] belongs
//! to one thread at a time, but [`Buffer::partitions_mut`] hands out its
//! partitions together, so that each can be synthesized on its own thread.

mod buffer;
mod client;
mod error;
mod ffi;
mod fr;
mod params;
mod writer;

pub use buffer::{Buffer, Dims, PageKind, Partition};
pub use client::{
    trace_file, Client, Completion, ConnectOptions, Limits, Phase, Priority, Proof, Request, StatusFormat, Submitted,
    Traced,
};
pub use error::{Error, ErrorKind, Result};
pub use fr::Fr;
pub use params::{Kind, ParamFile, ParamState};
pub use writer::{ConstraintWriter, Variable};

/// Struct sizes of include/cuzk.h, for the ABI test.
#[doc(hidden)]
pub fn abi_sizes() -> [usize; 7] {
    use std::mem::size_of;
    [
        size_of::<ffi::cuzk_completion>(),
        size_of::<ffi::cuzk_dims>(),
        size_of::<ffi::cuzk_request>(),
        size_of::<ffi::cuzk_partition>(),
        size_of::<ffi::cuzk_limits>(),
        size_of::<ffi::cuzk_connect_opts>(),
        size_of::<ffi::cuzk_submit_opts>(),
    ]
}

/// Offsets of the fields libcuzk 0.3 added or that go with them, for the ABI
/// test: cuzk_connect_opts' flags, reserved0, reserved, and
/// cuzk_submit_opts' flags, trace_fd, reserved.
#[doc(hidden)]
pub fn abi_offsets() -> [usize; 6] {
    use std::mem::MaybeUninit;
    use std::ptr::addr_of;
    let c = MaybeUninit::<ffi::cuzk_connect_opts>::uninit();
    let s = MaybeUninit::<ffi::cuzk_submit_opts>::uninit();
    let (cp, sp) = (c.as_ptr(), s.as_ptr());
    let at = |base: *const u8, f: *const u8| f as usize - base as usize;
    // SAFETY: addr_of! takes field addresses without reading the memory.
    unsafe {
        [
            at(cp as *const u8, addr_of!((*cp).flags) as *const u8),
            at(cp as *const u8, addr_of!((*cp).reserved0) as *const u8),
            at(cp as *const u8, addr_of!((*cp).reserved) as *const u8),
            at(sp as *const u8, addr_of!((*sp).flags) as *const u8),
            at(sp as *const u8, addr_of!((*sp).trace_fd) as *const u8),
            at(sp as *const u8, addr_of!((*sp).reserved) as *const u8),
        ]
    }
}
