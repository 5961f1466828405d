// SPDX-License-Identifier: Apache-2.0 OR MIT
//! What the integration tests share: circom's .r1cs and .wtns read in Rust,
//! the cuzk command, and a cuzkd of their own on a temporary socket (CPU
//! backend), started with READY=1 awaited on a notify socket.
//!
//! make check (tests/bindings/rust.sh) sets CUZK_BIN, CUZKD_BIN and
//! CUZK_FIXTURES; a plain `cargo test` without them skips these tests,
//! saying so.
#![allow(dead_code)]

use std::env;
use std::fs;
use std::io::ErrorKind as IoKind;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cuzk::{ConstraintWriter, Fr, Variable};

/// The environment make check provides, or None (the test then prints why
/// it does nothing).
pub struct Env {
    pub cuzk: PathBuf,
    pub cuzkd: PathBuf,
    pub fixtures: PathBuf,
}

/// The environment, or a return from the test after saying why it skips.
macro_rules! env_or_return {
    ($test:expr) => {
        match common::env_or_skip($test) {
            Some(e) => e,
            None => return,
        }
    };
}

pub fn env_or_skip(test: &str) -> Option<Env> {
    match (env::var_os("CUZK_BIN"), env::var_os("CUZKD_BIN"), env::var_os("CUZK_FIXTURES")) {
        (Some(c), Some(d), Some(f)) => Some(Env { cuzk: c.into(), cuzkd: d.into(), fixtures: f.into() }),
        _ => {
            eprintln!("SKIP: {}: CUZK_BIN, CUZKD_BIN and CUZK_FIXTURES are not set (make check sets them)", test);
            None
        }
    }
}

/// A scratch directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let base = env::var_os("CUZK_TEST_TMP").map(PathBuf::from).unwrap_or_else(env::temp_dir);
        let dir = base.join(format!("cuzk-rs-{}-{}-{}", tag, std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs the cuzk command; panics with its output when it fails.
pub fn cuzk(env: &Env, args: &[&str]) -> String {
    let out = Command::new(&env.cuzk).args(args).output().expect("running cuzk");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "cuzk {:?} failed:\n{}", args, text);
    text
}

/// A circom circuit: wires 0 (the constant 1), public outputs and inputs,
/// then private wires; constraints as (wire, coefficient) terms.
pub struct Circuit {
    pub num_inputs: usize,
    pub num_aux: usize,
    pub constraints: Vec<[Vec<(usize, Fr)>; 3]>,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn fr_at(b: &[u8], o: usize) -> Fr {
    let mut w = [0u8; 32];
    w.copy_from_slice(&b[o..o + 32]);
    Fr::from_le_bytes(&w).expect("a field element below r")
}

/// circom's sectioned files: "r1cs"/"wtns", version, then (type, size, body).
fn sections<'a>(b: &'a [u8], magic: &[u8]) -> Vec<(u32, &'a [u8])> {
    assert_eq!(&b[..4], magic, "not a circom {:?} file", String::from_utf8_lossy(magic));
    let n = u32_at(b, 8) as usize;
    let mut at = 12;
    let mut out = Vec::new();
    for _ in 0..n {
        let ty = u32_at(b, at);
        let size = u64::from_le_bytes(b[at + 4..at + 12].try_into().unwrap()) as usize;
        out.push((ty, &b[at + 12..at + 12 + size]));
        at += 12 + size;
    }
    out
}

pub fn read_r1cs(path: &Path) -> Circuit {
    let b = fs::read(path).expect("reading the .r1cs");
    let secs = sections(&b, b"r1cs");
    let hdr = secs.iter().find(|s| s.0 == 1).expect("header section").1;
    assert_eq!(u32_at(hdr, 0), 32, "a 32-byte field");
    let h = 4 + 32;
    let (n_wires, n_out, n_pub_in) = (u32_at(hdr, h) as usize, u32_at(hdr, h + 4) as usize, u32_at(hdr, h + 8) as usize);
    let m = u32_at(hdr, h + 24) as usize;
    let num_inputs = 1 + n_out + n_pub_in;
    let body = secs.iter().find(|s| s.0 == 2).expect("constraints section").1;
    let mut at = 0;
    let mut constraints = Vec::with_capacity(m);
    for _ in 0..m {
        let mut lcs: [Vec<(usize, Fr)>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for lc in lcs.iter_mut() {
            let n = u32_at(body, at) as usize;
            at += 4;
            for _ in 0..n {
                lc.push((u32_at(body, at) as usize, fr_at(body, at + 4)));
                at += 36;
            }
        }
        constraints.push(lcs);
    }
    Circuit { num_inputs, num_aux: n_wires - num_inputs, constraints }
}

pub fn read_wtns(path: &Path) -> Vec<Fr> {
    let b = fs::read(path).expect("reading the .wtns");
    let secs = sections(&b, b"wtns");
    let hdr = secs.iter().find(|s| s.0 == 1).expect("header section").1;
    let n = u32_at(hdr, 4 + 32) as usize;
    let vals = secs.iter().find(|s| s.0 == 2).expect("values section").1;
    (0..n).map(|i| fr_at(vals, 32 * i)).collect()
}

impl Circuit {
    pub fn dims(&self, partitions: u32) -> cuzk::Dims {
        cuzk::Dims::for_circuit(self.constraints.len() as u64, self.num_inputs as u64, self.num_aux as u64, partitions)
    }

    fn var(&self, wire: usize) -> Variable {
        if wire < self.num_inputs {
            Variable::Input(wire)
        } else {
            Variable::Aux(wire - self.num_inputs)
        }
    }

    /// Synthesizes z into w the way a bellperson circuit would: inputs and
    /// aux in wire order, then every constraint.
    pub fn write(&self, w: &mut ConstraintWriter<'_>, z: &[Fr]) -> cuzk::Result<()> {
        assert_eq!(z.len(), self.num_inputs + self.num_aux);
        assert_eq!(z[0], Fr::ONE);
        for v in &z[1..self.num_inputs] {
            w.alloc_input(*v)?;
        }
        for v in &z[self.num_inputs..] {
            w.alloc_aux(*v)?;
        }
        for [a, b, c] in &self.constraints {
            let lc = |t: &Vec<(usize, Fr)>| t.iter().map(|&(wire, coeff)| (self.var(wire), coeff)).collect::<Vec<_>>();
            w.enforce(lc(a), lc(b), lc(c))?;
        }
        Ok(())
    }
}

/// A cuzkd of the test's own, stopped (SIGTERM, then waited for) on drop.
pub struct Daemon {
    child: Child,
    pub socket: PathBuf,
    pub srs_dir: PathBuf,
    log: PathBuf,
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}

impl Daemon {
    pub fn start(env: &Env, dir: &Scratch) -> Daemon {
        let srs_dir = dir.path("srs");
        fs::create_dir_all(&srs_dir).unwrap();
        let socket = dir.path("s");
        let conf = dir.path("cuzkd.conf");
        fs::write(
            &conf,
            format!(
                "[daemon]\nsocket = {}\nsrs_dir = {}\nbackend = cpu\n[engine]\ncpu_workers = 1\n",
                socket.display(),
                srs_dir.display()
            ),
        )
        .unwrap();
        let notify_path = dir.path("notify");
        let notify = UnixDatagram::bind(&notify_path).expect("notify socket");
        notify.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
        let log = dir.path("cuzkd.log");
        let child = Command::new(&env.cuzkd)
            .arg("--config")
            .arg(&conf)
            .env("NOTIFY_SOCKET", &notify_path)
            .env_remove("LISTEN_FDS")
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .expect("starting cuzkd");
        let mut d = Daemon { child, socket, srs_dir, log };
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut buf = [0u8; 4096];
        loop {
            match notify.recv(&mut buf) {
                Ok(n) if String::from_utf8_lossy(&buf[..n]).contains("READY=1") => return d,
                Ok(_) => {}
                Err(e) if e.kind() == IoKind::WouldBlock || e.kind() == IoKind::TimedOut => {
                    if let Ok(Some(st)) = d.child.try_wait() {
                        panic!("cuzkd exited ({}) before READY=1:\n{}", st, d.log_text());
                    }
                }
                Err(e) => panic!("notify socket: {}", e),
            }
            assert!(Instant::now() < deadline, "cuzkd never said READY=1:\n{}", d.log_text());
        }
    }

    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // SAFETY: signals our own child.
        unsafe { kill(self.child.id() as i32, 15) };
        let _ = self.child.wait();
    }
}
