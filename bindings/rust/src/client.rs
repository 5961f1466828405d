// SPDX-License-Identifier: Apache-2.0 OR MIT
//! A connection to cuzkd: submit witness buffers, take completions.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::os::raw::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::os::unix::io::{AsFd, AsRawFd, FromRawFd, RawFd};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::buffer::{c_string, Buffer};
use crate::error::{c_error, c_text, Error, ErrorKind, Result};
use crate::ffi;
use crate::params::ParamFile;

/// 192 bytes, bellperson's encoding: A (compressed G1) ‖ B (G2) ‖ C (G1).
pub type Proof = [u8; ffi::CUZK_PROOF_BYTES];

/// Queue order; FIFO within one priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// WinningPoSt: seconds to land on chain.
    Critical = 0,
    High = 1,
    Normal = 2,
    Low = 3,
}

/// Phases of a proof, indexes of [`Completion::phase_ns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Check = 0,
    Queue = 1,
    Srs = 2,
    Register = 3,
    Upload = 4,
    Ntt = 5,
    Msm = 6,
    Assemble = 7,
    Total = 8,
}

/// What to prove a buffer with.
#[derive(Clone, Debug)]
pub struct Request {
    srs: String,
    priority: Priority,
    seed: Option<u64>,
}

impl Request {
    /// `srs`: a parameter file's name in the daemon's srs_dir directories,
    /// or a proof kind (`"porep-32g"`, [`crate::Kind::name`]).
    pub fn new(srs: impl Into<String>) -> Request {
        Request { srs: srs.into(), priority: Priority::Normal, seed: None }
    }

    pub fn priority(mut self, p: Priority) -> Request {
        self.priority = p;
        self
    }

    /// r and s from `seed` instead of the system's randomness, so that two
    /// backends' proofs of one witness compare byte for byte.  For tests
    /// only: such proofs are not zero-knowledge.
    pub fn fixed_rs(mut self, seed: u64) -> Request {
        self.seed = Some(seed);
        self
    }
}

/// A submitted request: `id` is this connection's (completions carry it),
/// `job_id` the daemon's (its logs, `cuzk cancel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub id: u64,
    pub job_id: u64,
}

/// A finished request: the proofs, one per partition, or the daemon's error.
#[derive(Clone, Debug)]
pub struct Completion {
    pub request_id: u64,
    pub result: Result<Vec<Proof>>,
    /// Nanoseconds per [`Phase`]; 0 for a phase that did not run separately.
    pub phase_ns: [u64; ffi::CUZK_PHASE_SLOTS],
    /// The daemon's one-line message: on failure the error's (also in
    /// `result`); on success "", except for a traced request whose timeline
    /// could not be written ("trace not written: ...": the proofs are
    /// still there).
    pub message: String,
}

impl Completion {
    pub fn phase(&self, p: Phase) -> Duration {
        Duration::from_nanos(self.phase_ns[p as usize])
    }

    fn from_c(c: &ffi::cuzk_completion) -> Completion {
        let result = if c.status == 0 {
            Ok(c.proof[..c.num_partitions as usize].to_vec())
        } else {
            Err(Error::new(ErrorKind::from_code(c.status), c_text(&c.message)))
        };
        Completion { request_id: c.request_id, result, phase_ns: c.phase_ns, message: c_text(&c.message) }
    }
}

/// The daemon's limits for this connection (from its hello).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_inflight: u32,
    pub max_partitions: u32,
    pub max_witness_bytes: u64,
    pub ring_slots: u32,
}

/// Wishes for the connection; 0: the daemon's default.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnectOptions {
    pub max_inflight: u32,
    pub ring_slots: u32,
    /// This connection will ask for timelines ([`Client::submit_traced`],
    /// [`Client::prove_traced`]; libcuzk's `CUZK_CONNECT_TRACE`).  A cuzkd
    /// older than traces refuses such a connection ([`ErrorKind::Protocol`],
    /// "unknown flags"): set it only when a timeline is wanted.
    pub trace: bool,
}

/// A traced request's end, from [`Client::prove_traced`].
#[derive(Clone, Debug)]
pub struct Traced {
    /// The daemon's job id, which the timeline names ("cuzkd job N").
    pub job_id: u64,
    /// The completion: the proofs or the daemon's error.
    pub completion: Completion,
    /// The request's timeline: Chrome trace-event JSON (Perfetto and
    /// chrome://tracing open it; docs/OPERATIONS.md, "Timelines of
    /// requests").  A failed request has one too, up to where it failed.
    /// None when the daemon did not write it (whole): when the proofs were
    /// made, `completion.message` then says why ("trace not written: ...").
    pub timeline: Option<Vec<u8>>,
}

/// A new memory file (a memfd, close-on-exec) for
/// [`Client::submit_traced`]: the daemon writes timelines only into memory
/// files (a memfd, a file on tmpfs such as /dev/shm), never into a file on
/// disk.  It writes at the file's offset, which this process shares: after
/// the completion arrived, read from where the offset was (0 for a new
/// file: `seek(SeekFrom::Start(0))` and `read_to_end`).
pub fn trace_file() -> Result<File> {
    // SAFETY: a NUL-terminated name; the fd is ours on success.
    let fd = unsafe { ffi::memfd_create(b"cuzk-trace\0".as_ptr() as *const c_char, ffi::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Error::new(ErrorKind::Io, format!("memfd_create: {}", std::io::Error::last_os_error())));
    }
    // SAFETY: a new fd nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// The whole of a trace memfd this crate made, or None when it is empty.
fn read_timeline(f: &File) -> Result<Option<Vec<u8>>> {
    let io = |what: &str, e: std::io::Error| Error::new(ErrorKind::Io, format!("trace memfd: {}: {}", what, e));
    let len = f.metadata().map_err(|e| io("fstat", e))?.len();
    if len == 0 {
        return Ok(None);
    }
    let mut v = vec![0u8; len as usize];
    f.read_exact_at(&mut v, 0).map_err(|e| io("read", e))?;
    Ok(Some(v))
}

/// Status text formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusFormat {
    Text,
    Json,
}

/// Completions taken by one thread for another (Client::prove).
#[derive(Default)]
struct Waiters {
    stash: HashMap<u64, Completion>,
    /// A thread sleeps in libcuzk for everyone.
    leader: bool,
}

/// A connection to cuzkd.  Shared between threads (`&Client` is Send and
/// Sync: libcuzk takes a mutex around each call); dropping it disconnects,
/// and the daemon cancels what is still in flight.
pub struct Client {
    raw: NonNull<ffi::cuzk_client>,
    waiters: Mutex<Waiters>,
    woken: Condvar,
}

// SAFETY: libcuzk serialises every call on a client with its own mutex and
// allows several waiters (include/cuzk.h, THREADS).
unsafe impl Send for Client {}
unsafe impl Sync for Client {}

pub(crate) fn c_path(p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("{}: path contains a NUL byte", p.display())))
}

/// The C call's result as 0/1, or its error.
fn check(rc: c_int, err: &ffi::cuzk_error) -> Result<c_int> {
    if rc < 0 {
        Err(Error::from_c(rc, err))
    } else {
        Ok(rc)
    }
}

fn empty_completion() -> Box<ffi::cuzk_completion> {
    // 12.7 KiB: on the heap.
    Box::new(ffi::cuzk_completion {
        request_id: 0,
        status: 0,
        num_partitions: 0,
        phase_ns: [0; ffi::CUZK_PHASE_SLOTS],
        message: [0; ffi::CUZK_MESSAGE_MAX],
        proof: [[0; ffi::CUZK_PROOF_BYTES]; ffi::CUZK_MAX_PARTITIONS],
    })
}

fn timeout_ms(t: Option<Duration>) -> c_int {
    match t {
        None => -1,
        Some(d) => d.as_millis().min(i32::MAX as u128) as c_int,
    }
}

impl Client {
    /// Connects to the daemon's socket (e.g. /run/cuzk/cuzkd.sock).
    pub fn connect(socket: impl AsRef<Path>) -> Result<Client> {
        Client::connect_with(socket, &ConnectOptions::default())
    }

    pub fn connect_with(socket: impl AsRef<Path>, opts: &ConnectOptions) -> Result<Client> {
        let path = c_path(socket.as_ref())?;
        let o = ffi::cuzk_connect_opts {
            max_inflight: opts.max_inflight,
            ring_slots: opts.ring_slots,
            log: None,
            log_opaque: ptr::null_mut(),
            flags: if opts.trace { ffi::CUZK_CONNECT_TRACE } else { 0 },
            reserved0: 0,
            reserved: [0; 3],
        };
        let mut raw = ptr::null_mut();
        let mut err = c_error();
        // SAFETY: valid pointers; raw is set on success.
        check(unsafe { ffi::cuzk_connect(&mut raw, path.as_ptr(), &o, &mut err) }, &err)?;
        Ok(Client {
            raw: NonNull::new(raw).expect("cuzk_connect returned NULL"),
            waiters: Mutex::new(Waiters::default()),
            woken: Condvar::new(),
        })
    }

    pub(crate) fn raw(&self) -> *mut ffi::cuzk_client {
        self.raw.as_ptr()
    }

    pub fn limits(&self) -> Limits {
        let mut l = ffi::cuzk_limits {
            max_inflight: 0,
            max_partitions: 0,
            max_witness_bytes: 0,
            ring_slots: 0,
            reserved0: 0,
            reserved: [0; 2],
        };
        // SAFETY: a valid client.
        unsafe { ffi::cuzk_client_limits(self.raw(), &mut l) };
        Limits {
            max_inflight: l.max_inflight,
            max_partitions: l.max_partitions,
            max_witness_bytes: l.max_witness_bytes,
            ring_slots: l.ring_slots,
        }
    }

    /// A witness buffer; the reason it did not get huge pages, if any, is
    /// logged once through this connection.
    pub fn alloc(&self, dims: &crate::Dims) -> Result<Buffer> {
        Buffer::alloc(Some(self), dims)
    }

    /// Seals the buffer and sends it; the daemon checks it before it
    /// answers, so a rejection (unknown SRS, bad shape, a limit) is an error
    /// here and produces no completion.  An accepted request produces
    /// exactly one completion.
    pub fn submit(&self, buf: &Buffer, req: &Request) -> Result<Submitted> {
        self.submit_ex(buf, req, None)
    }

    /// [`Client::submit`], asking the daemon to write the request's
    /// timeline into `trace` (a [`trace_file`], or another memory file open
    /// for writing; borrowed: the caller keeps it and reads it) before it
    /// posts the completion, whatever the request's outcome.  Needs a
    /// connection made with [`ConnectOptions::trace`], else
    /// [`ErrorKind::Unsupported`]; a file the daemon refuses (on disk, a
    /// pipe or socket, read-only: `BadFd`; sealed: `Seals`) is a rejection
    /// whose message names the trace fd.
    /// [`Client::prove_traced`] does it all and returns the timeline.
    pub fn submit_traced(&self, buf: &Buffer, req: &Request, trace: &impl AsFd) -> Result<Submitted> {
        let o = ffi::cuzk_submit_opts {
            flags: ffi::CUZK_SUBMIT_TRACE,
            trace_fd: trace.as_fd().as_raw_fd(),
            reserved: [0; 3],
        };
        self.submit_ex(buf, req, Some(&o))
    }

    fn submit_ex(&self, buf: &Buffer, req: &Request, opts: Option<&ffi::cuzk_submit_opts>) -> Result<Submitted> {
        let srs = c_string("SRS name", &req.srs)?;
        let r = ffi::cuzk_request {
            srs: srs.as_ptr(),
            priority: req.priority as u32,
            flags: if req.seed.is_some() { ffi::CUZK_REQ_FIXED_RS } else { 0 },
            seed: req.seed.unwrap_or(0),
            reserved: [0; 2],
        };
        let (mut id, mut job) = (0u64, 0u64);
        let mut err = c_error();
        let o = opts.map_or(ptr::null(), |o| o as *const _);
        // SAFETY: valid pointers for the duration of the call (opts may be NULL).
        check(unsafe { ffi::cuzk_submit_ex(self.raw(), buf.raw(), &r, o, &mut id, &mut job, &mut err) }, &err)?;
        Ok(Submitted { id, job_id: job })
    }

    /// A completion if one is waiting; never sleeps.
    pub fn poll(&self) -> Result<Option<Completion>> {
        if let Some(c) = self.take_stashed() {
            return Ok(Some(c));
        }
        let mut c = empty_completion();
        let mut err = c_error();
        // SAFETY: valid pointers.
        let rc = check(unsafe { ffi::cuzk_poll(self.raw(), &mut *c, &mut err) }, &err)?;
        Ok(if rc == 1 { Some(Completion::from_c(&c)) } else { None })
    }

    /// The next completion, sleeping up to `timeout` (None: until one
    /// arrives); Ok(None) on timeout.  An error when the daemon closed the
    /// connection.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<Option<Completion>> {
        self.wait_interruptible(timeout, -1)
    }

    /// Like [`Client::wait`], and returns an error of kind
    /// [`ErrorKind::Cancelled`] as soon as `wake_fd` is readable (a pipe or
    /// eventfd another thread writes to, e.g. on shutdown).  -1: none.
    pub fn wait_interruptible(&self, timeout: Option<Duration>, wake_fd: RawFd) -> Result<Option<Completion>> {
        if let Some(c) = self.take_stashed() {
            return Ok(Some(c));
        }
        let mut c = empty_completion();
        let mut err = c_error();
        // SAFETY: valid pointers.
        let rc =
            check(unsafe { ffi::cuzk_wait_fd(self.raw(), &mut *c, timeout_ms(timeout), wake_fd, &mut err) }, &err)?;
        Ok(if rc == 1 { Some(Completion::from_c(&c)) } else { None })
    }

    /// Submits and waits for that request's completion: the proofs, or the
    /// daemon's error.  Several threads may prove on one client at once;
    /// one of them sleeps in libcuzk and hands the others their completions.
    /// (A thread calling [`Client::wait`] or [`Client::poll`] meanwhile may
    /// take one of theirs: use one style per client.)
    pub fn prove(&self, buf: &Buffer, req: &Request) -> Result<Vec<Proof>> {
        let s = self.submit(buf, req)?;
        self.wait_for(s.id)?.result
    }

    /// [`Client::prove`] with the request's timeline: a new [`trace_file`]
    /// for it, the completion (proofs or the daemon's error, in
    /// `completion.result`), and what the daemon wrote.  An error only when
    /// the request was rejected (as [`Client::submit_traced`]) or the
    /// connection failed.  Needs a connection made with
    /// [`ConnectOptions::trace`].
    pub fn prove_traced(&self, buf: &Buffer, req: &Request) -> Result<Traced> {
        let f = trace_file()?;
        let s = self.submit_traced(buf, req, &f)?;
        let completion = self.wait_for(s.id)?;
        // A proved request with a message: its timeline was not written
        // (or not whole).
        let timeline = if completion.result.is_ok() && !completion.message.is_empty() {
            None
        } else {
            read_timeline(&f)?
        };
        Ok(Traced { job_id: s.job_id, completion, timeline })
    }

    /// The completion of request `id`, whichever thread receives it.
    pub fn wait_for(&self, id: u64) -> Result<Completion> {
        let mut st = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(c) = st.stash.remove(&id) {
                return Ok(c);
            }
            if st.leader {
                st = self.woken.wait(st).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            st.leader = true;
            drop(st);
            let mut c = empty_completion();
            let mut err = c_error();
            // SAFETY: valid pointers.
            let rc = unsafe { ffi::cuzk_wait(self.raw(), &mut *c, -1, &mut err) };
            st = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
            st.leader = false;
            self.woken.notify_all();
            match check(rc, &err)? {
                1 if c.request_id == id => return Ok(Completion::from_c(&c)),
                1 => {
                    st.stash.insert(c.request_id, Completion::from_c(&c));
                }
                _ => {}
            }
        }
    }

    fn take_stashed(&self) -> Option<Completion> {
        let mut st = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
        let id = *st.stash.keys().next()?;
        st.stash.remove(&id)
    }

    /// Cancels an accepted request of this connection; its completion still
    /// arrives (cancelled, or its result if it finished first).  NotFound
    /// when it already completed.
    pub fn cancel(&self, id: u64) -> Result<()> {
        let mut err = c_error();
        // SAFETY: valid pointers.
        check(unsafe { ffi::cuzk_cancel(self.raw(), id, &mut err) }, &err).map(|_| ())
    }

    /// Cancels a daemon job by its job id, possibly another connection's
    /// (allowed to the job owner's uid and to root).
    pub fn cancel_job(&self, job_id: u64) -> Result<()> {
        let mut err = c_error();
        // SAFETY: valid pointers.
        check(unsafe { ffi::cuzk_cancel_job(self.raw(), job_id, &mut err) }, &err).map(|_| ())
    }

    fn text(&self, format: Option<c_int>) -> Result<String> {
        let mut p: *mut c_char = ptr::null_mut();
        let mut len = 0usize;
        let mut err = c_error();
        // SAFETY: valid pointers; p is malloc'd on success.
        let rc = unsafe {
            match format {
                Some(f) => ffi::cuzk_daemon_status(self.raw(), f, &mut p, &mut len, &mut err),
                None => ffi::cuzk_daemon_metrics(self.raw(), &mut p, &mut len, &mut err),
            }
        };
        check(rc, &err)?;
        // SAFETY: NUL-terminated text the library allocated; freed once.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        unsafe { ffi::free(p as *mut _) };
        Ok(s)
    }

    /// The daemon's status: queues, workers, devices, caches.
    pub fn status(&self, format: StatusFormat) -> Result<String> {
        self.text(Some(match format {
            StatusFormat::Text => ffi::CUZK_STATUS_TEXT,
            StatusFormat::Json => ffi::CUZK_STATUS_JSON,
        }))
    }

    /// Prometheus metrics.
    pub fn metrics(&self) -> Result<String> {
        self.text(None)
    }

    /// The parameter files the daemon serves (`cuzk params list`).
    pub fn params(&self) -> Result<Vec<ParamFile>> {
        ParamFile::parse_list(&self.text(Some(ffi::CUZK_STATUS_PARAMS))?)
    }

    /// The eventfd the daemon signals after writing completions, for an
    /// event loop: when it is readable, call [`Client::poll`] until None.
    pub fn eventfd(&self) -> RawFd {
        // SAFETY: a valid client.
        unsafe { ffi::cuzk_client_eventfd(self.raw()) }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: &mut self: no call on this client is running.
        unsafe { ffi::cuzk_disconnect(self.raw.as_ptr()) }
    }
}
