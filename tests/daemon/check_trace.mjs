// SPDX-License-Identifier: Apache-2.0 OR MIT
// Checks a timeline cuzkd wrote for a traced request (docs/PROTOCOL.md, PROVE):
//   node check_trace.mjs FILE PARTITIONS JOB[,JOB...] NAME,NAME,... MAX_PER_PARTITION
// It must be Chrome trace-event JSON whose complete events have times from the
// request's arrival on named tracks; the job's "check request"; every NAME in
// every partition 0..PARTITIONS-1, with the job id; no more than
// MAX_PER_PARTITION events in a partition; each partition's daemon phases in
// the order they happen.  With several jobs, the timeline `cuzk submit
// --repeat --trace` merged: the same of each job, every span of a job inside
// that request's span on the track "cuzk submit", and times from the first
// arrival.  Exit 0, or 1 with the reason.
import { readFileSync } from "node:fs";

const [file, partsArg, jobsArg, namesArg, maxArg] = process.argv.slice(2);
const fail = (m) => {
	console.error(`${file}: ${m}`);
	process.exit(1);
};
if (!maxArg) fail("usage: check_trace.mjs FILE PARTITIONS JOB NAMES MAX_PER_PARTITION");
const parts = Number(partsArg), max = Number(maxArg), names = namesArg.split(","), jobs = jobsArg.split(",");
const merged = jobs.length > 1;

let t;
try {
	t = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
	fail(`not JSON: ${e.message}`);
}
const ev = t.traceEvents;
if (!Array.isArray(ev)) fail("no traceEvents array");
const track = new Map();
// A track's further rows ("cuzkd (2)": spans that overlap others there) are the track.
for (const e of ev) if (e.ph === "M" && e.name === "thread_name") track.set(e.tid, e.args.name.replace(/ \(\d+\)$/, ""));
const procName = merged ? "cuzkd, requests of cuzk submit" : `cuzkd job ${jobs[0]}`;
if (!ev.some((e) => e.ph === "M" && e.name === "process_name" && e.args.name === procName))
	fail(`no process named "${procName}"`);
const x = ev.filter((e) => e.ph === "X");
for (const e of x) {
	if (typeof e.ts !== "number" || typeof e.dur !== "number" || e.ts < 0 || e.dur < 0)
		fail("bad times: " + JSON.stringify(e));
	if (!track.has(e.tid)) fail("a track without a name: " + JSON.stringify(e));
	if (!jobs.includes(e.args.job)) fail(`an event of job ${e.args.job}, not ${jobs}: ` + JSON.stringify(e));
}
const end = (e) => e.ts + e.dur;
const slack = 0.002; // µs: times are printed to a thousandth
let first = Infinity;
for (const job of jobs) {
	const xj = x.filter((e) => e.args.job === job);
	const check = xj.find((e) => e.name === "check request");
	if (!check || track.get(check.tid) !== "cuzkd") fail(`job ${job}: no "check request" on the "cuzkd" track`);
	first = Math.min(first, check.ts);
	const one = (p, n) => xj.find((e) => e.name === n && e.args.partition === p);
	for (let p = 0; p < parts; p++) {
		for (const n of names) if (!one(p, n)) fail(`job ${job}: no "${n}" of partition ${p}`);
		const mine = xj.filter((e) => e.args.partition === p);
		if (mine.length > max) fail(`job ${job}: partition ${p} has ${mine.length} events, over the bound ${max}`);
		const q = one(p, "queue wait"), s = one(p, "srs wait"), a = one(p, "assemble"), v = one(p, "verify");
		if (track.get(q.tid) !== "cuzkd") fail(`partition ${p}: queue wait on "${track.get(q.tid)}"`);
		if (!/^cuzkd worker \d+$/.test(track.get(s.tid))) fail(`partition ${p}: srs wait on "${track.get(s.tid)}"`);
		if (q.ts < end(check) - slack) fail(`job ${job}: partition ${p} was queued before its request was checked`);
		if (s.ts < end(q) - slack) fail(`job ${job}: partition ${p}: srs wait before its queue wait ended`);
		if (v && a && v.ts < end(a) - slack) fail(`job ${job}: partition ${p}: verified before it was assembled`);
	}
	const stray = xj.find((e) => e.args.partition !== undefined && !(e.args.partition >= 0 && e.args.partition < parts));
	if (stray) fail("an event of a partition the request does not have: " + JSON.stringify(stray));
	if (!merged) continue;
	// The client's span of the request: from its arrival to its completion.
	const req = xj.filter((e) => track.get(e.tid) === "cuzk submit");
	if (req.length !== 1) fail(`job ${job}: ${req.length} spans on the "cuzk submit" track, not 1`);
	if (Math.abs(req[0].ts - check.ts) > slack) fail(`job ${job}: its request span does not start at its arrival`);
	const out = xj.find((e) => e.ts < req[0].ts - slack || end(e) > end(req[0]) + slack);
	if (out) fail(`job ${job}: a span outside its request's: ` + JSON.stringify(out));
}
if (merged && first !== 0) fail(`the first arrival is at ${first} µs, not at 0`);
console.log(`${file}: ${x.length} events on ${track.size} tracks, ${jobs.length} job(s) of ${parts} partitions`);
