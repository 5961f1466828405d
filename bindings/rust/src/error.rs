// SPDX-License-Identifier: Apache-2.0 OR MIT
//! Errors: the daemon's and libcuzk's status codes as a Rust enum, with the
//! one-line message that names what failed.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;

use crate::ffi;

/// What went wrong: one variant per status code of docs/PROTOCOL.md
/// ("Errors"); the codes are append-only, so a newer daemon's unknown code
/// arrives as [`ErrorKind::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A bad argument: an SRS name, an option, a variable the writer does not know.
    InvalidArgument,
    /// A system call failed (the message has strerror), or the daemon went away.
    Io,
    OutOfMemory,
    /// A malformed witness header (field and offset named).
    Format,
    Version,
    Length,
    Flags,
    NonCanonical,
    NotOnCurve,
    NotInSubgroup,
    /// A constraint is not satisfied.
    Unsatisfied,
    /// The witness's shape disagrees with the SRS, the buffer or the request.
    Mismatch,
    VerifyFailed,
    /// A feature not built in (the GPU backend, ...).
    Unsupported,
    Gpu,
    /// The request was cancelled, or a wait was interrupted.
    Cancelled,
    /// A limit was reached: in flight, bytes, size.
    Busy,
    /// An unknown SRS or kind, or a request id not in flight.
    NotFound,
    Permission,
    /// The device memory budget cannot hold the job.
    VramBudget,
    Protocol,
    BadFd,
    Seals,
    /// The daemon is draining and takes no new work.
    ShuttingDown,
    Internal,
    /// A code this crate does not know.
    Other(i32),
}

const KINDS: [ErrorKind; 25] = [
    ErrorKind::InvalidArgument,
    ErrorKind::Io,
    ErrorKind::OutOfMemory,
    ErrorKind::Format,
    ErrorKind::Version,
    ErrorKind::Length,
    ErrorKind::Flags,
    ErrorKind::NonCanonical,
    ErrorKind::NotOnCurve,
    ErrorKind::NotInSubgroup,
    ErrorKind::Unsatisfied,
    ErrorKind::Mismatch,
    ErrorKind::VerifyFailed,
    ErrorKind::Unsupported,
    ErrorKind::Gpu,
    ErrorKind::Cancelled,
    ErrorKind::Busy,
    ErrorKind::NotFound,
    ErrorKind::Permission,
    ErrorKind::VramBudget,
    ErrorKind::Protocol,
    ErrorKind::BadFd,
    ErrorKind::Seals,
    ErrorKind::ShuttingDown,
    ErrorKind::Internal,
];

impl ErrorKind {
    /// The kind of a status code (positive or negated, as libcuzk returns it).
    pub fn from_code(code: i32) -> ErrorKind {
        let c = code.unsigned_abs() as usize;
        if (1..=KINDS.len()).contains(&c) {
            KINDS[c - 1]
        } else {
            ErrorKind::Other(code.wrapping_abs())
        }
    }

    /// The positive status code.
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::Other(c) => c,
            k => KINDS.iter().position(|x| *x == k).map_or(0, |i| i as i32 + 1),
        }
    }

    /// libcuzk's short name of the code, e.g. "busy".
    pub fn name(self) -> &'static str {
        // SAFETY: cuzk_status_name returns a static NUL-terminated string for any code.
        unsafe { CStr::from_ptr(ffi::cuzk_status_name(self.code())) }.to_str().unwrap_or("unknown")
    }
}

/// An error from libcuzk, the daemon, or this crate: its kind and a
/// one-line message naming what failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into() }
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// From a libcuzk return value and the cuzk_error it filled.
    pub(crate) fn from_c(rc: i32, err: &ffi::cuzk_error) -> Error {
        Error::new(ErrorKind::from_code(rc), c_text(&err.msg))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.kind.name())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// A NUL-terminated C string in a fixed array, as UTF-8 (lossy).
pub(crate) fn c_text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A zeroed cuzk_error for an out-parameter.
pub(crate) fn c_error() -> ffi::cuzk_error {
    ffi::cuzk_error { code: 0, msg: [0; ffi::CUZK_ERRMSG_MAX] }
}
