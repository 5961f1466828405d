// SPDX-License-Identifier: Apache-2.0 OR MIT
//! Witness buffers: a memfd libcuzk allocates and maps read-write, whose
//! sections a client fills in place (docs/PROTOCOL.md, "The witness file").

use std::ffi::CString;
use std::os::unix::io::RawFd;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::slice;

use crate::client::Client;
use crate::error::{c_error, Error, ErrorKind, Result};
use crate::ffi;
use crate::fr::Fr;

/// The shape of every partition of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// a, b, c length: the circuit's constraints plus one per public input
    /// (the input·0 = 0 rows bellperson appends).
    pub num_constraints: u64,
    /// Public inputs, the constant 1 included.
    pub num_inputs: u64,
    pub num_aux: u64,
    pub num_partitions: u32,
    /// Scalars in Montgomery form (what [`Fr`] and bellperson hold); false:
    /// canonical.
    pub montgomery: bool,
}

impl Dims {
    /// Montgomery-form dims for `partitions` partitions of a circuit with
    /// `circuit_constraints` constraints of its own.
    pub fn for_circuit(circuit_constraints: u64, num_inputs: u64, num_aux: u64, partitions: u32) -> Dims {
        Dims {
            num_constraints: circuit_constraints + num_inputs,
            num_inputs,
            num_aux,
            num_partitions: partitions,
            montgomery: true,
        }
    }

    /// Bytes of one partition's sections: a, b, c, inputs and aux at 32
    /// bytes a scalar, the three density bitmaps at one bit a variable
    /// (each section rounded up to 64 bytes).  What [`Buffer`] costs per
    /// partition, before huge-page rounding.
    pub fn partition_bytes(&self) -> u64 {
        let round = |n: u64| (n + 63) / 64 * 64;
        let words = |bits: u64| (bits + 63) / 64 * 8;
        3 * round(32 * self.num_constraints)
            + round(32 * self.num_inputs)
            + round(32 * self.num_aux)
            + 2 * round(words(self.num_aux))
            + round(words(self.num_inputs))
    }

    fn to_c(self) -> ffi::cuzk_dims {
        ffi::cuzk_dims {
            num_constraints: self.num_constraints,
            num_inputs: self.num_inputs,
            num_aux: self.num_aux,
            num_partitions: self.num_partitions,
            flags: if self.montgomery { ffi::CUZK_WITNESS_FLAG_MONTGOMERY } else { 0 },
            reserved: [0; 2],
        }
    }
}

/// Which pages back a buffer (docs/OPERATIONS.md, "Huge pages for witness
/// buffers").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// MFD_HUGETLB, from the hugetlb pool.
    HugeTlb,
    /// shmem with MADV_HUGEPAGE (transparent huge pages).
    Thp,
    /// 4 KiB pages.
    Small,
}

/// One partition's sections, mutable slices straight into the memfd: what
/// is written here is what the daemon reads, without a copy.
pub struct Partition<'a> {
    pub a: &'a mut [Fr],
    pub b: &'a mut [Fr],
    pub c: &'a mut [Fr],
    /// `input[0]` is the constant 1.
    pub input: &'a mut [Fr],
    pub aux: &'a mut [Fr],
    /// Bit i of word i/64: aux variable i has a non-zero coefficient in some A.
    pub a_aux_density: &'a mut [u64],
    pub b_input_density: &'a mut [u64],
    pub b_aux_density: &'a mut [u64],
}

/// A witness buffer, for any number of proofs one after the other: write a
/// witness, submit, wait for the completion, write the next one.  Reusing a
/// buffer saves its page faults and the daemon's pinning (docs/CLIENTS.md).
///
/// The daemon reads the buffer in place while a proof of it runs: writing
/// it before the completion arrived makes that proof wrong (never anyone
/// else's, and never unsafe for this process).
pub struct Buffer {
    raw: NonNull<ffi::cuzk_buffer>,
    dims: Dims,
}

// A buffer belongs to one thread at a time (libcuzk's rule); its partitions
// may go to several (Buffer::partitions_mut).
unsafe impl Send for Buffer {}

impl Buffer {
    /// A buffer of these dims; `client` (may be None) only receives the log
    /// line saying why huge pages were not used.
    pub fn alloc(client: Option<&Client>, dims: &Dims) -> Result<Buffer> {
        let c = dims.to_c();
        let mut raw = ptr::null_mut();
        let mut err = c_error();
        let cl = client.map_or(ptr::null_mut(), |c| c.raw());
        // SAFETY: valid pointers; the library fills raw on success.
        let rc = unsafe { ffi::cuzk_buffer_alloc(cl, &mut raw, &c, &mut err) };
        if rc < 0 {
            return Err(Error::from_c(rc, &err));
        }
        Ok(Buffer { raw: NonNull::new(raw).expect("cuzk_buffer_alloc returned NULL"), dims: *dims })
    }

    /// A buffer holding a witness file as `cuzk synth` writes it (one copy
    /// of every byte: for tools and tests).
    pub fn load_file(client: Option<&Client>, path: impl AsRef<Path>) -> Result<Buffer> {
        let p = crate::client::c_path(path.as_ref())?;
        let mut raw = ptr::null_mut();
        let mut err = c_error();
        let cl = client.map_or(ptr::null_mut(), |c| c.raw());
        // SAFETY: as in alloc.
        let rc = unsafe { ffi::cuzk_buffer_load_file(cl, &mut raw, p.as_ptr(), &mut err) };
        if rc < 0 {
            return Err(Error::from_c(rc, &err));
        }
        let raw = NonNull::new(raw).expect("cuzk_buffer_load_file returned NULL");
        // The dims from the header the library checked.
        // SAFETY: the mapping starts with the 64-byte header.
        let hdr = unsafe { slice::from_raw_parts(ffi::cuzk_buffer_data(raw.as_ptr()) as *const u8, 64) };
        let u64_at = |o: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&hdr[o..o + 8]);
            u64::from_le_bytes(w)
        };
        let u32_at = |o: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&hdr[o..o + 4]);
            u32::from_le_bytes(w)
        };
        let dims = Dims {
            num_constraints: u64_at(24),
            num_inputs: u64_at(32),
            num_aux: u64_at(40),
            num_partitions: u32_at(16),
            montgomery: u32_at(12) & 1 != 0,
        };
        Ok(Buffer { raw, dims })
    }

    pub fn dims(&self) -> &Dims {
        &self.dims
    }

    pub(crate) fn raw(&self) -> *mut ffi::cuzk_buffer {
        self.raw.as_ptr()
    }

    /// The whole mapping (header, partition table, sections): what the daemon
    /// receives.  Whole pages, so it may be longer than the layout.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the mapping is size bytes long and lives as long as self.
        unsafe {
            slice::from_raw_parts(
                ffi::cuzk_buffer_data(self.raw.as_ptr()) as *const u8,
                ffi::cuzk_buffer_size(self.raw.as_ptr()) as usize,
            )
        }
    }

    /// The memfd (owned by the buffer).
    pub fn fd(&self) -> RawFd {
        // SAFETY: a valid buffer.
        unsafe { ffi::cuzk_buffer_fd(self.raw.as_ptr()) }
    }

    pub fn pages(&self) -> PageKind {
        // SAFETY: a valid buffer.
        match unsafe { ffi::cuzk_buffer_pages(self.raw.as_ptr()) } {
            0 => PageKind::HugeTlb,
            1 => PageKind::Thp,
            _ => PageKind::Small,
        }
    }

    /// Partition `index`'s sections.
    pub fn partition_mut(&mut self, index: u32) -> Result<Partition<'_>> {
        self.check_disjoint()?;
        // SAFETY: disjoint sections of a mapping that lives as long as the
        // borrow of self, which no other Partition holds (&mut self).
        unsafe { self.partition_unchecked(index) }
    }

    /// Every partition at once, e.g. to synthesize them on several threads.
    pub fn partitions_mut(&mut self) -> Result<Vec<Partition<'_>>> {
        self.check_disjoint()?;
        // SAFETY: as partition_mut: the sections of different partitions do
        // not overlap either (check_disjoint).
        (0..self.dims.num_partitions).map(|i| unsafe { self.partition_unchecked(i) }).collect()
    }

    fn c_partition(&self, index: u32) -> Result<ffi::cuzk_partition> {
        let mut p = ffi::cuzk_partition {
            a: ptr::null_mut(),
            b: ptr::null_mut(),
            c: ptr::null_mut(),
            input: ptr::null_mut(),
            aux: ptr::null_mut(),
            a_aux_density: ptr::null_mut(),
            b_input_density: ptr::null_mut(),
            b_aux_density: ptr::null_mut(),
            reserved: [0; 4],
        };
        // SAFETY: a valid buffer; the library checks index.
        if unsafe { ffi::cuzk_buffer_partition(self.raw.as_ptr(), index, &mut p) } < 0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("partition {} of a buffer of {}", index, self.dims.num_partitions),
            ));
        }
        Ok(p)
    }

    /// (start, length) of every section of every partition.
    fn sections(&self) -> Result<Vec<(usize, usize)>> {
        let d = &self.dims;
        let (nc, ni, na) = (d.num_constraints as usize, d.num_inputs as usize, d.num_aux as usize);
        let (wi, wa) = ((ni + 63) / 64, (na + 63) / 64);
        let mut v = Vec::new();
        for i in 0..d.num_partitions {
            let p = self.c_partition(i)?;
            v.extend_from_slice(&[
                (p.a as usize, 32 * nc),
                (p.b as usize, 32 * nc),
                (p.c as usize, 32 * nc),
                (p.input as usize, 32 * ni),
                (p.aux as usize, 32 * na),
                (p.a_aux_density as usize, 8 * wa),
                (p.b_input_density as usize, 8 * wi),
                (p.b_aux_density as usize, 8 * wa),
            ]);
        }
        Ok(v)
    }

    /// Mutable slices must not alias: a witness file may share a section
    /// between partitions (the format allows it), a buffer from
    /// Buffer::alloc never does.
    fn check_disjoint(&self) -> Result<()> {
        let mut s = self.sections()?;
        s.retain(|&(_, len)| len > 0);
        s.sort_unstable();
        if s.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "the buffer's sections overlap (partitions share a section): it cannot be written through slices",
            ));
        }
        Ok(())
    }

    unsafe fn partition_unchecked<'a>(&self, index: u32) -> Result<Partition<'a>> {
        let p = self.c_partition(index)?;
        let d = &self.dims;
        let (nc, ni, na) = (d.num_constraints as usize, d.num_inputs as usize, d.num_aux as usize);
        let (wi, wa) = ((ni + 63) / 64, (na + 63) / 64);
        Ok(Partition {
            a: mut_slice(p.a as *mut Fr, nc),
            b: mut_slice(p.b as *mut Fr, nc),
            c: mut_slice(p.c as *mut Fr, nc),
            input: mut_slice(p.input as *mut Fr, ni),
            aux: mut_slice(p.aux as *mut Fr, na),
            a_aux_density: mut_slice(p.a_aux_density, wa),
            b_input_density: mut_slice(p.b_input_density, wi),
            b_aux_density: mut_slice(p.b_aux_density, wa),
        })
    }
}

/// A slice over n elements at p; an empty section may have no address.
unsafe fn mut_slice<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    if n == 0 {
        &mut []
    } else {
        slice::from_raw_parts_mut(p, n)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: owned; the daemon keeps its own reference to the memfd.
        unsafe { ffi::cuzk_buffer_free(self.raw.as_ptr()) }
    }
}

pub(crate) fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("{} contains a NUL byte", what)))
}
