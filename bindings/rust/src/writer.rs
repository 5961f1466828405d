// SPDX-License-Identifier: Apache-2.0 OR MIT
//! A constraint system that writes a partition's witness straight into its
//! buffer, with the semantics of bellperson's `ProvingAssignment`: each
//! `enforce` evaluates its three linear combinations at the assignment into
//! that constraint's a, b and c slots and marks the A and B densities; the
//! input·0 = 0 rows are appended by `finish`.  Assignments live in the
//! buffer's input and aux sections: nothing is kept in vectors on the side.

use crate::buffer::Partition;
use crate::error::{Error, ErrorKind, Result};
use crate::fr::Fr;

/// A variable of the constraint system: bellperson's `Index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variable {
    /// Public input i; Input(0) is the constant 1.
    Input(usize),
    Aux(usize),
}

impl Variable {
    /// The constant 1.
    pub const ONE: Variable = Variable::Input(0);
}

/// Writes one partition.  Its capacity is the buffer's dims; `finish`
/// checks the circuit filled it exactly.
pub struct ConstraintWriter<'a> {
    p: Partition<'a>,
    inputs: usize,
    aux: usize,
    rows: usize,
    /// Circuit rows the buffer has room for: num_constraints - num_inputs.
    max_rows: usize,
}

fn set_bit(words: &mut [u64], i: usize) {
    words[i / 64] |= 1 << (i % 64);
}

impl<'a> ConstraintWriter<'a> {
    /// Starts a partition: clears its density bitmaps (a reused buffer
    /// holds the last witness's) and allocates the constant 1 as input 0.
    pub fn new(p: Partition<'a>) -> Result<ConstraintWriter<'a>> {
        if p.input.is_empty() || p.a.len() < p.input.len() {
            return Err(Error::new(
                ErrorKind::Mismatch,
                "a partition needs at least one input (the constant 1) and a row for each input",
            ));
        }
        for w in [&mut *p.a_aux_density, &mut *p.b_input_density, &mut *p.b_aux_density] {
            w.iter_mut().for_each(|x| *x = 0);
        }
        p.input[0] = Fr::ONE;
        let max_rows = p.a.len() - p.input.len();
        Ok(ConstraintWriter { p, inputs: 1, aux: 0, rows: 0, max_rows })
    }

    pub fn num_inputs(&self) -> usize {
        self.inputs
    }

    pub fn num_aux(&self) -> usize {
        self.aux
    }

    /// The circuit's constraints so far (without the input rows).
    pub fn num_constraints(&self) -> usize {
        self.rows
    }

    /// A new private variable with this value.
    pub fn alloc_aux(&mut self, value: Fr) -> Result<Variable> {
        let slot = self.p.aux.get_mut(self.aux).ok_or_else(|| {
            Error::new(ErrorKind::Mismatch, format!("the circuit allocates more than the buffer's {} aux variables", self.aux))
        })?;
        *slot = value;
        self.aux += 1;
        Ok(Variable::Aux(self.aux - 1))
    }

    /// A new public input with this value.
    pub fn alloc_input(&mut self, value: Fr) -> Result<Variable> {
        let slot = self.p.input.get_mut(self.inputs).ok_or_else(|| {
            Error::new(
                ErrorKind::Mismatch,
                format!("the circuit allocates more than the buffer's {} inputs", self.inputs),
            )
        })?;
        *slot = value;
        self.inputs += 1;
        Ok(Variable::Input(self.inputs - 1))
    }

    /// The value of an allocated variable.
    pub fn value(&self, v: Variable) -> Option<Fr> {
        match v {
            Variable::Input(i) if i < self.inputs => Some(self.p.input[i]),
            Variable::Aux(i) if i < self.aux => Some(self.p.aux[i]),
            _ => None,
        }
    }

    /// <lc, z>, marking the variables it names in the densities given.
    #[inline]
    fn eval<I>(&mut self, lc: I, input_density: bool, aux_density: Option<bool>) -> Result<Fr>
    where
        I: IntoIterator<Item = (Variable, Fr)>,
    {
        let mut acc = Fr::ZERO;
        for (v, coeff) in lc {
            let x = match v {
                Variable::Input(i) if i < self.inputs => {
                    if input_density {
                        set_bit(self.p.b_input_density, i);
                    }
                    self.p.input[i]
                }
                Variable::Aux(i) if i < self.aux => {
                    match aux_density {
                        Some(false) => set_bit(self.p.a_aux_density, i),
                        Some(true) => set_bit(self.p.b_aux_density, i),
                        None => {}
                    }
                    self.p.aux[i]
                }
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidArgument,
                        format!("constraint {}: {:?} is not allocated", self.rows, v),
                    ))
                }
            };
            acc += if coeff == Fr::ONE { x } else { x * coeff };
        }
        Ok(acc)
    }

    /// One constraint <a, z>·<b, z> = <c, z>, written as its three values.
    /// Every variable of `a` with a coefficient counts in the A density (aux
    /// only: every input is in A through its input row), every one of `b` in
    /// the B densities, as bellperson counts them (zero coefficients
    /// included).  Satisfaction is not checked here: the daemon proves what
    /// it is given.
    pub fn enforce<A, B, C>(&mut self, a: A, b: B, c: C) -> Result<()>
    where
        A: IntoIterator<Item = (Variable, Fr)>,
        B: IntoIterator<Item = (Variable, Fr)>,
        C: IntoIterator<Item = (Variable, Fr)>,
    {
        if self.rows == self.max_rows {
            return Err(Error::new(
                ErrorKind::Mismatch,
                format!("the circuit has more than the buffer's {} constraints", self.max_rows),
            ));
        }
        let va = self.eval(a, false, Some(false))?;
        let vb = self.eval(b, true, Some(true))?;
        let vc = self.eval(c, false, None)?;
        let k = self.rows;
        self.p.a[k] = va;
        self.p.b[k] = vb;
        self.p.c[k] = vc;
        self.rows += 1;
        Ok(())
    }

    /// Appends the input rows (input_i · 0 = 0) and checks that the circuit
    /// had exactly the buffer's shape.
    pub fn finish(self) -> Result<()> {
        let (ni, na) = (self.p.input.len(), self.p.aux.len());
        if self.inputs != ni || self.aux != na || self.rows != self.max_rows {
            return Err(Error::new(
                ErrorKind::Mismatch,
                format!(
                    "the circuit has {} inputs, {} aux variables and {} constraints; the buffer holds {}, {} and {}",
                    self.inputs, self.aux, self.rows, ni, na, self.max_rows
                ),
            ));
        }
        for i in 0..ni {
            self.p.a[self.rows + i] = self.p.input[i];
            self.p.b[self.rows + i] = Fr::ZERO;
            self.p.c[self.rows + i] = Fr::ZERO;
        }
        Ok(())
    }
}
