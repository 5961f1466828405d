// SPDX-License-Identifier: Apache-2.0 OR MIT
//! Proofs through a cuzkd of the test's own (CPU backend): circuits
//! synthesized by the constraint writer straight into the buffer, proved,
//! and checked by the project's verifier (`cuzk verify`); several
//! partitions written on several threads; two threads proving on one
//! client; a kind served by its Filecoin file name; the daemon's errors
//! as typed errors; and traced requests' timelines.

#[macro_use]
mod common;

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use common::{cuzk, read_r1cs, read_wtns, Circuit, Daemon, Env, Scratch};
use cuzk::{Buffer, Client, ConnectOptions, ConstraintWriter, ErrorKind, Fr, Kind, ParamState, Phase, Priority, Request};

struct Setup {
    circuit: Circuit,
    z: Vec<Fr>,
    vk: String,
    witness: String,
}

/// A circuit's parameters (cuzk setup) in the daemon's srs_dir as `name`,
/// its verifying key, and cuzk synth's witness file (public inputs for verify).
fn setup(env: &Env, dir: &Scratch, d: &Daemon, fixture: &str, name: &str) -> Setup {
    let r1cs = env.fixtures.join(format!("{}.r1cs", fixture));
    let wtns = env.fixtures.join(format!("{}.wtns", fixture));
    let params = d.srs_dir.join(name);
    let vk = dir.path(&format!("{}.vk", fixture)).to_str().unwrap().to_string();
    let witness = dir.path(&format!("{}.witness", fixture)).to_str().unwrap().to_string();
    let (r, p) = (r1cs.to_str().unwrap(), params.to_str().unwrap());
    cuzk(env, &["setup", "--r1cs", r, "--params", p, "--vk", &vk, "--seed", "5"]);
    cuzk(env, &["synth", "--r1cs", r, "--wtns", wtns.to_str().unwrap(), "--out", &witness]);
    Setup { circuit: read_r1cs(&r1cs), z: read_wtns(&wtns), vk, witness }
}

/// Every proof verifies against the circuit's public inputs.
fn verify(env: &Env, dir: &Scratch, s: &Setup, proofs: &[cuzk::Proof]) {
    for (i, p) in proofs.iter().enumerate() {
        let f = dir.path(&format!("p{}.proof", i));
        fs::write(&f, p).unwrap();
        cuzk(env, &["verify", "--vk", &s.vk, "--proof", f.to_str().unwrap(), "--witness", &s.witness]);
    }
}

fn written(client: &Client, s: &Setup, parts: u32) -> Buffer {
    let mut buf = client.alloc(&s.circuit.dims(parts)).unwrap();
    let partitions = buf.partitions_mut().unwrap();
    std::thread::scope(|sc| {
        for p in partitions {
            sc.spawn(|| {
                let mut w = ConstraintWriter::new(p).unwrap();
                s.circuit.write(&mut w, &s.z).unwrap();
                w.finish().unwrap();
            });
        }
    });
    buf
}

#[test]
fn proofs_from_the_writer_verify() {
    let env = env_or_return!("proofs_from_the_writer_verify");
    let dir = Scratch::new("prove");
    let d = Daemon::start(&env, &dir);
    let s = setup(&env, &dir, &d, "bits", "bits.params");
    let client = Client::connect(&d.socket).unwrap();
    assert!(client.limits().max_partitions >= 3);

    // Three partitions synthesized on three threads, proved, verified.
    let buf = written(&client, &s, 3);
    let proofs = client.prove(&buf, &Request::new("bits.params").priority(Priority::High)).unwrap();
    assert_eq!(proofs.len(), 3);
    verify(&env, &dir, &s, &proofs);

    // The same buffer again, through submit and wait, with fixed r and s:
    // the same proof twice.
    let req = Request::new("bits.params").fixed_rs(3);
    let a = client.submit(&buf, &req).unwrap();
    assert!(a.job_id > 0);
    let ca = client.wait(Some(Duration::from_secs(120))).unwrap().expect("a completion");
    assert_eq!(ca.request_id, a.id);
    assert!(ca.phase(Phase::Total) > Duration::ZERO);
    let b = client.submit(&buf, &req).unwrap();
    let cb = client.wait_for(b.id).unwrap();
    assert_eq!(ca.result.unwrap(), cb.result.unwrap());
    assert!(client.poll().unwrap().is_none());
    let m = client.metrics().unwrap();
    assert!(m.contains("cuzk_registration_cache_hits_total"), "{}", m);

    // Two threads proving on one client, each its own buffer.
    let b2 = written(&client, &s, 1);
    let c = &client;
    let results: Vec<_> = std::thread::scope(|sc| {
        let h1 = sc.spawn(move || c.prove(&buf, &Request::new("bits.params")));
        let h2 = sc.spawn(move || c.prove(&b2, &Request::new("bits.params")));
        vec![h1.join().unwrap(), h2.join().unwrap()]
    });
    assert_eq!(results[0].as_ref().unwrap().len(), 3);
    verify(&env, &dir, &s, results[1].as_ref().unwrap());
}

#[test]
fn kinds_and_listing() {
    let env = env_or_return!("kinds_and_listing");
    let dir = Scratch::new("kinds");
    let d = Daemon::start(&env, &dir);
    // mulchain's parameters under WinningPoSt's Filecoin file name.
    let s = setup(&env, &dir, &d, "mulchain", Kind::WinningPost32G.params_file());
    let client = Client::connect(&d.socket).unwrap();
    let buf = written(&client, &s, 1);
    let proofs = client.prove(&buf, &Request::new(Kind::WinningPost32G.name()).priority(Priority::Critical)).unwrap();
    verify(&env, &dir, &s, &proofs);

    let list = client.params().unwrap();
    let w = list.iter().find(|p| p.kind == Some(Kind::WinningPost32G)).expect("the kind is listed");
    assert_eq!(w.state, ParamState::Loaded);
    assert_eq!(w.dir.as_deref(), d.srs_dir.to_str());
    assert_eq!(w.inputs, Some(s.circuit.num_inputs as u64));
    assert_eq!(w.aux, Some(s.circuit.num_aux as u64));
    assert!(w.domain.unwrap() >= (s.circuit.constraints.len() + s.circuit.num_inputs) as u64);
    let snap = list.iter().find(|p| p.kind == Some(Kind::Snap64G)).unwrap();
    assert_eq!((snap.state.clone(), snap.dir.clone()), (ParamState::Absent, None));
    assert!(client.status(cuzk::StatusFormat::Json).unwrap().starts_with('{'));
}

#[test]
fn daemon_errors_are_typed() {
    let env = env_or_return!("daemon_errors_are_typed");
    let dir = Scratch::new("errors");
    let e = Client::connect(dir.path("no-such.sock")).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.message().contains("no-such.sock"), "{}", e);

    let d = Daemon::start(&env, &dir);
    let s = setup(&env, &dir, &d, "mulchain", "mulchain.params");
    let client = Client::connect(&d.socket).unwrap();
    let buf = written(&client, &s, 1);

    let e = client.submit(&buf, &Request::new("nope.params")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.message().contains("unknown SRS 'nope.params'"), "{}", e);
    let e = client.submit(&buf, &Request::new(Kind::Snap64G.name())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    let m = e.message();
    assert!(m.contains("'snap-64g': none of ") && m.contains("has its file, v28-empty-sector-update"), "{}", e);
    assert_eq!(client.submit(&buf, &Request::new("../x")).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(client.submit(&buf, &Request::new("a\0b")).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(client.cancel(987654).unwrap_err().kind(), ErrorKind::NotFound);

    // A witness of another shape than the parameters: the completion fails.
    let other = setup(&env, &dir, &d, "bits", "bits.params");
    let wrong = written(&client, &other, 1);
    let e = client.prove(&wrong, &Request::new("mulchain.params")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Mismatch);
    assert!(e.message().contains("params"), "{}", e);

    // A wait another fd interrupts.
    let (mut tx, rx) = UnixStream::pair().unwrap();
    tx.write_all(b"x").unwrap();
    let e = client.wait_interruptible(None, rx.as_raw_fd()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
    assert!(client.wait(Some(Duration::from_millis(0))).unwrap().is_none());

    // Still serving after all that.
    verify(&env, &dir, &s, &client.prove(&buf, &Request::new("mulchain.params")).unwrap());
}

/// A whole timeline of `job` with `parts` partitions (Chrome trace-event
/// JSON as cuzkd writes it), or the reason it is not.
fn check_timeline(text: &str, job: u64, parts: u32, proved: bool) {
    assert!(text.starts_with('{') && text.ends_with("\n]}\n"), "not a whole timeline:\n{}", text);
    assert!(text.contains("\"traceEvents\"") && text.contains(&format!("cuzkd job {}", job)), "{}", text);
    assert!(text.contains("\"check request\"") && text.contains("\"srs wait\""), "{}", text);
    assert!(text.contains(&format!("\"partition\": {}", parts - 1)), "partition {} missing:\n{}", parts - 1, text);
    // Proved partitions are verified; a failed request's stops before.
    assert_eq!(text.contains("\"verify\""), proved, "{}", text);
}

#[test]
fn timelines_of_traced_requests() {
    let env = env_or_return!("timelines_of_traced_requests");
    let dir = Scratch::new("trace");
    let d = Daemon::start(&env, &dir);
    let s = setup(&env, &dir, &d, "mulchain", "mulchain.params");
    let req = Request::new("mulchain.params");

    // A connection made without asking for traces refuses traced submits,
    // before anything reaches the daemon.
    let plain = Client::connect(&d.socket).unwrap();
    let buf = written(&plain, &s, 2);
    let f = cuzk::trace_file().unwrap();
    let e = plain.submit_traced(&buf, &req, &f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{}", e);
    assert!(e.message().contains("CUZK_CONNECT_TRACE"), "{}", e);
    assert_eq!(plain.prove_traced(&buf, &req).unwrap_err().kind(), ErrorKind::Unsupported);
    assert_eq!(f.metadata().unwrap().len(), 0);
    assert!(plain.poll().unwrap().is_none(), "a refused submit made a completion");
    drop(plain);

    let client = Client::connect_with(&d.socket, &ConnectOptions { trace: true, ..Default::default() }).unwrap();
    // prove_traced: the proofs, and the timeline the daemon wrote first.
    let t = client.prove_traced(&buf, &req).unwrap();
    let proofs = t.completion.result.clone().unwrap();
    assert_eq!((proofs.len(), t.completion.message.as_str()), (2, ""));
    verify(&env, &dir, &s, &proofs);
    let text = String::from_utf8(t.timeline.expect("a timeline")).unwrap();
    check_timeline(&text, t.job_id, 2, true);

    // submit_traced into the caller's file: written at its offset, which
    // the daemon's copy of the descriptor shares; a second request's
    // timeline follows the first.
    let mut f = cuzk::trace_file().unwrap();
    let a = client.submit_traced(&buf, &req, &f).unwrap();
    let ca = client.wait_for(a.id).unwrap();
    assert!(ca.result.is_ok(), "{:?}", ca.result);
    let first = f.metadata().unwrap().len();
    assert!(first > 0 && f.stream_position().unwrap() == first);
    let b = client.submit_traced(&buf, &req, &f).unwrap();
    assert!(client.wait_for(b.id).unwrap().result.is_ok());
    let mut both = String::new();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.read_to_string(&mut both).unwrap();
    check_timeline(&both[..first as usize], a.job_id, 2, true);
    check_timeline(&both[first as usize..], b.job_id, 2, true);

    // A plain submit on the traced connection: proofs, and nothing more in
    // the file of the traced ones.
    verify(&env, &dir, &s, &client.prove(&buf, &req).unwrap());
    assert_eq!(f.metadata().unwrap().len(), both.len() as u64);

    // A request that fails has its timeline too, up to where it failed: a
    // witness of another circuit fails the shape check before any MSM.
    let other = setup(&env, &dir, &d, "bits", "bits.params");
    let wrong = written(&client, &other, 1);
    let t = client.prove_traced(&wrong, &req).unwrap();
    assert_eq!(t.completion.result.as_ref().unwrap_err().kind(), ErrorKind::Mismatch);
    let text = String::from_utf8(t.timeline.expect("a failed request's timeline")).unwrap();
    assert!(text.contains("\"check request\"") && !text.contains("\"verify\""), "{}", text);

    // A descriptor the daemon does not write into (a socket; a file on disk
    // likewise) is a rejection that names the trace fd.
    let (sock, _peer) = UnixStream::pair().unwrap();
    let e = client.submit_traced(&buf, &req, &sock).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadFd, "{}", e);
    assert!(e.message().contains("trace"), "{}", e);

    // Still serving after all that.
    verify(&env, &dir, &s, &client.prove(&buf, &req).unwrap());
}
