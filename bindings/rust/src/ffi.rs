// SPDX-License-Identifier: Apache-2.0 OR MIT
//! The C declarations of include/cuzk.h (libcuzk.so.1), by hand: the crate
//! has no build dependencies.  tests/synth.rs (abi_matches_the_header)
//! checks the struct sizes and the offsets of the newer fields against the
//! header's (src/client/test_abi.c asserts the same sizes).
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub const CUZK_ERRMSG_MAX: usize = 512;
pub const CUZK_PROOF_BYTES: usize = 192;
pub const CUZK_MAX_PARTITIONS: usize = 64;
pub const CUZK_MESSAGE_MAX: usize = 256;
pub const CUZK_PHASE_SLOTS: usize = 12;

pub const CUZK_REQ_FIXED_RS: u32 = 0x4;
pub const CUZK_CONNECT_TRACE: u32 = 0x1;
pub const CUZK_SUBMIT_TRACE: u32 = 0x1;
pub const CUZK_WITNESS_FLAG_MONTGOMERY: u32 = 0x1;

pub const CUZK_STATUS_TEXT: c_int = 0;
pub const CUZK_STATUS_JSON: c_int = 1;
pub const CUZK_STATUS_PARAMS: c_int = 2;

pub const MFD_CLOEXEC: std::os::raw::c_uint = 0x1;

#[repr(C)]
pub struct cuzk_error {
    pub code: c_int,
    pub msg: [c_char; CUZK_ERRMSG_MAX],
}

#[repr(C)]
pub struct cuzk_completion {
    pub request_id: u64,
    pub status: i32,
    pub num_partitions: u32,
    pub phase_ns: [u64; CUZK_PHASE_SLOTS],
    pub message: [c_char; CUZK_MESSAGE_MAX],
    pub proof: [[u8; CUZK_PROOF_BYTES]; CUZK_MAX_PARTITIONS],
}

pub type cuzk_log_fn = Option<unsafe extern "C" fn(opaque: *mut c_void, level: c_int, line: *const c_char)>;

#[repr(C)]
pub struct cuzk_connect_opts {
    pub max_inflight: u32,
    pub ring_slots: u32,
    pub log: cuzk_log_fn,
    pub log_opaque: *mut c_void,
    /// CUZK_CONNECT_* (libcuzk 0.3; the first reserved word before).
    pub flags: u32,
    pub reserved0: u32,
    pub reserved: [u64; 3],
}

#[repr(C)]
pub struct cuzk_limits {
    pub max_inflight: u32,
    pub max_partitions: u32,
    pub max_witness_bytes: u64,
    pub ring_slots: u32,
    pub reserved0: u32,
    pub reserved: [u64; 2],
}

#[repr(C)]
pub struct cuzk_dims {
    pub num_constraints: u64,
    pub num_inputs: u64,
    pub num_aux: u64,
    pub num_partitions: u32,
    pub flags: u32,
    pub reserved: [u64; 2],
}

#[repr(C)]
pub struct cuzk_partition {
    pub a: *mut c_void,
    pub b: *mut c_void,
    pub c: *mut c_void,
    pub input: *mut c_void,
    pub aux: *mut c_void,
    pub a_aux_density: *mut u64,
    pub b_input_density: *mut u64,
    pub b_aux_density: *mut u64,
    pub reserved: [u64; 4],
}

#[repr(C)]
pub struct cuzk_request {
    pub srs: *const c_char,
    pub priority: u32,
    pub flags: u32,
    pub seed: u64,
    pub reserved: [u64; 2],
}

#[repr(C)]
pub struct cuzk_submit_opts {
    pub flags: u32,
    pub trace_fd: i32,
    pub reserved: [u64; 3],
}

#[repr(C)]
pub struct cuzk_client {
    _private: [u8; 0],
}

#[repr(C)]
pub struct cuzk_buffer {
    _private: [u8; 0],
}

extern "C" {
    pub fn cuzk_status_name(code: c_int) -> *const c_char;
    pub fn cuzk_kind_params(kind: *const c_char) -> *const c_char;

    pub fn cuzk_connect(
        ret: *mut *mut cuzk_client,
        socket_path: *const c_char,
        opts: *const cuzk_connect_opts,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_disconnect(c: *mut cuzk_client);
    pub fn cuzk_client_limits(c: *const cuzk_client, ret: *mut cuzk_limits);
    pub fn cuzk_client_eventfd(c: *const cuzk_client) -> c_int;

    pub fn cuzk_buffer_alloc(
        c: *mut cuzk_client,
        ret: *mut *mut cuzk_buffer,
        dims: *const cuzk_dims,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_buffer_free(b: *mut cuzk_buffer);
    pub fn cuzk_buffer_load_file(
        c: *mut cuzk_client,
        ret: *mut *mut cuzk_buffer,
        path: *const c_char,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_buffer_partition(b: *mut cuzk_buffer, index: u32, ret: *mut cuzk_partition) -> c_int;
    pub fn cuzk_buffer_data(b: *mut cuzk_buffer) -> *mut c_void;
    pub fn cuzk_buffer_size(b: *const cuzk_buffer) -> u64;
    pub fn cuzk_buffer_fd(b: *const cuzk_buffer) -> c_int;
    pub fn cuzk_buffer_pages(b: *const cuzk_buffer) -> c_int;

    // CUZK_0.3; with NULL opts it is cuzk_submit (CUZK_0.1), which Client::submit was.
    pub fn cuzk_submit_ex(
        c: *mut cuzk_client,
        b: *mut cuzk_buffer,
        req: *const cuzk_request,
        opts: *const cuzk_submit_opts,
        ret_id: *mut u64,
        ret_job_id: *mut u64,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_poll(c: *mut cuzk_client, ret: *mut cuzk_completion, err: *mut cuzk_error) -> c_int;
    pub fn cuzk_wait(c: *mut cuzk_client, ret: *mut cuzk_completion, timeout_ms: c_int, err: *mut cuzk_error)
        -> c_int;
    pub fn cuzk_wait_fd(
        c: *mut cuzk_client,
        ret: *mut cuzk_completion,
        timeout_ms: c_int,
        wake_fd: c_int,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_cancel(c: *mut cuzk_client, request_id: u64, err: *mut cuzk_error) -> c_int;
    pub fn cuzk_cancel_job(c: *mut cuzk_client, job_id: u64, err: *mut cuzk_error) -> c_int;
    pub fn cuzk_daemon_status(
        c: *mut cuzk_client,
        format: c_int,
        ret: *mut *mut c_char,
        ret_len: *mut usize,
        err: *mut cuzk_error,
    ) -> c_int;
    pub fn cuzk_daemon_metrics(
        c: *mut cuzk_client,
        ret: *mut *mut c_char,
        ret_len: *mut usize,
        err: *mut cuzk_error,
    ) -> c_int;

    // libc's, for the status texts libcuzk allocates, and the trace memfd.
    pub fn free(p: *mut c_void);
    pub fn memfd_create(name: *const c_char, flags: std::os::raw::c_uint) -> c_int;
}
