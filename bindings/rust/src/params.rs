// SPDX-License-Identifier: Apache-2.0 OR MIT
//! Proof kinds and the daemon's parameter files (`cuzk params list`).

use std::ffi::{CStr, CString};

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

/// Filecoin's circuits by name.  A request may name a kind wherever it
/// names a parameter file: the daemon serves the kind's v28 file from its
/// srs_dir directories (e.g. /var/tmp/filecoin-proof-parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Porep32G,
    Porep64G,
    WindowPost32G,
    WindowPost64G,
    WinningPost32G,
    WinningPost64G,
    Snap32G,
    Snap64G,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Porep32G,
        Kind::Porep64G,
        Kind::WindowPost32G,
        Kind::WindowPost64G,
        Kind::WinningPost32G,
        Kind::WinningPost64G,
        Kind::Snap32G,
        Kind::Snap64G,
    ];

    /// The name requests use, e.g. "porep-32g".
    pub fn name(self) -> &'static str {
        match self {
            Kind::Porep32G => "porep-32g",
            Kind::Porep64G => "porep-64g",
            Kind::WindowPost32G => "window-post-32g",
            Kind::WindowPost64G => "window-post-64g",
            Kind::WinningPost32G => "winning-post-32g",
            Kind::WinningPost64G => "winning-post-64g",
            Kind::Snap32G => "snap-32g",
            Kind::Snap64G => "snap-64g",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Filecoin's v28 parameter file name for the kind (libcuzk's table).
    pub fn params_file(self) -> &'static str {
        let n = CString::new(self.name()).expect("kind names have no NUL");
        // SAFETY: libcuzk returns a static string for a known kind.
        let p = unsafe { ffi::cuzk_kind_params(n.as_ptr()) };
        assert!(!p.is_null(), "libcuzk does not know kind {}", self.name());
        unsafe { CStr::from_ptr(p) }.to_str().expect("file names are ASCII")
    }
}

/// Where a parameter file stands in the daemon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamState {
    Loaded,
    Loading,
    /// On disk, not in the cache.
    Available,
    /// A kind whose file is in none of the directories.
    Absent,
    /// The file cannot be served: the reason.
    Error(String),
}

/// One line of the daemon's listing (docs/PROTOCOL.md, STATUS format PARAMS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFile {
    pub kind: Option<Kind>,
    pub name: String,
    /// The directory that serves it; None for an absent kind.
    pub dir: Option<String>,
    pub bytes: Option<u64>,
    /// Evaluation domain size: a witness has at most this many constraints,
    /// input rows included.
    pub domain: Option<u64>,
    /// Public inputs, the constant 1 included.
    pub inputs: Option<u64>,
    pub aux: Option<u64>,
    pub state: ParamState,
}

impl ParamFile {
    pub(crate) fn parse_list(text: &str) -> Result<Vec<ParamFile>> {
        let bad = |line: &str| Error::new(ErrorKind::Protocol, format!("params listing: malformed line '{}'", line));
        let num = |s: &str| if s == "-" { None } else { s.parse().ok() };
        let opt = |s: &str| if s == "-" { None } else { Some(s.to_string()) };
        let mut out = Vec::new();
        for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 8 {
                return Err(bad(line));
            }
            let state = match f[7] {
                "loaded" => ParamState::Loaded,
                "loading" => ParamState::Loading,
                "available" => ParamState::Available,
                "absent" => ParamState::Absent,
                s => match s.strip_prefix("error: ") {
                    Some(why) => ParamState::Error(why.to_string()),
                    None => return Err(bad(line)),
                },
            };
            out.push(ParamFile {
                kind: Kind::from_name(f[0]),
                name: f[1].to_string(),
                dir: opt(f[2]),
                bytes: num(f[3]),
                domain: num(f[4]),
                inputs: num(f[5]),
                aux: num(f[6]),
                state,
            });
        }
        Ok(out)
    }
}
