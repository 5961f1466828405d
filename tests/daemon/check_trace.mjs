// SPDX-License-Identifier: Apache-2.0 OR MIT
// Checks a timeline cuzkd wrote for a traced request (docs/PROTOCOL.md, PROVE):
//   node check_trace.mjs FILE PARTITIONS JOB NAME,NAME,... MAX_PER_PARTITION
// It must be Chrome trace-event JSON whose complete events have times from the
// request's arrival on named tracks; the job's "check request"; every NAME in
// every partition 0..PARTITIONS-1, with the job id; no more than
// MAX_PER_PARTITION events in a partition; each partition's daemon phases in
// the order they happen.  Exit 0, or 1 with the reason.
import { readFileSync } from "node:fs";

const [file, partsArg, job, namesArg, maxArg] = process.argv.slice(2);
const fail = (m) => {
	console.error(`${file}: ${m}`);
	process.exit(1);
};
if (!maxArg) fail("usage: check_trace.mjs FILE PARTITIONS JOB NAMES MAX_PER_PARTITION");
const parts = Number(partsArg), max = Number(maxArg), names = namesArg.split(",");

let t;
try {
	t = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
	fail(`not JSON: ${e.message}`);
}
const ev = t.traceEvents;
if (!Array.isArray(ev)) fail("no traceEvents array");
const track = new Map();
for (const e of ev) if (e.ph === "M" && e.name === "thread_name") track.set(e.tid, e.args.name);
if (!ev.some((e) => e.ph === "M" && e.name === "process_name" && e.args.name === `cuzkd job ${job}`))
	fail(`no process named "cuzkd job ${job}"`);
const x = ev.filter((e) => e.ph === "X");
for (const e of x) {
	if (typeof e.ts !== "number" || typeof e.dur !== "number" || e.ts < 0 || e.dur < 0)
		fail("bad times: " + JSON.stringify(e));
	if (!track.has(e.tid)) fail("a track without a name: " + JSON.stringify(e));
	if (e.args.job !== job) fail(`an event of job ${e.args.job}, not ${job}: ` + JSON.stringify(e));
}
const check = x.find((e) => e.name === "check request");
if (!check || track.get(check.tid) !== "cuzkd") fail('no "check request" on the "cuzkd" track');

const one = (p, n) => x.find((e) => e.name === n && e.args.partition === p);
const end = (e) => e.ts + e.dur;
const slack = 0.002; // µs: times are printed to a thousandth
for (let p = 0; p < parts; p++) {
	for (const n of names) if (!one(p, n)) fail(`no "${n}" of partition ${p}`);
	const mine = x.filter((e) => e.args.partition === p);
	if (mine.length > max) fail(`partition ${p} has ${mine.length} events, over the bound ${max}`);
	const q = one(p, "queue wait"), s = one(p, "srs wait"), a = one(p, "assemble"), v = one(p, "verify");
	if (track.get(q.tid) !== "cuzkd") fail(`partition ${p}: queue wait on "${track.get(q.tid)}"`);
	if (!/^cuzkd worker \d+$/.test(track.get(s.tid))) fail(`partition ${p}: srs wait on "${track.get(s.tid)}"`);
	if (q.ts < end(check) - slack) fail(`partition ${p} was queued before its request was checked`);
	if (s.ts < end(q) - slack) fail(`partition ${p}: srs wait before its queue wait ended`);
	if (v && a && v.ts < end(a) - slack) fail(`partition ${p}: verified before it was assembled`);
}
const stray = x.find((e) => e.args.partition !== undefined && !(e.args.partition >= 0 && e.args.partition < parts));
if (stray) fail("an event of a partition the request does not have: " + JSON.stringify(stray));
console.log(`${file}: ${x.length} events on ${track.size} tracks, ${parts} partitions`);
