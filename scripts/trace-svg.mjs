#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 OR MIT
// Renders a cuzk trace-event timeline (`cuzk bench prove --trace FILE`) as an
// SVG picture for the docs: one row per track (CPU thread, GPU stream), one
// box per span, coloured by phase, labelled when wide enough.
//
//   node scripts/trace-svg.mjs TRACE.json OUT.svg [FROM_MS [TO_MS]]
//
// FROM_MS/TO_MS cut a window out of the timeline (milliseconds from its
// start), e.g. the proofs without the setup before them.
import { readFileSync, writeFileSync } from "node:fs";

const [, , inPath, outPath, fromArg, toArg] = process.argv;
if (!inPath || !outPath) {
	console.error("usage: node scripts/trace-svg.mjs TRACE.json OUT.svg [FROM_MS [TO_MS]]");
	process.exit(2);
}
const trace = JSON.parse(readFileSync(inPath, "utf8"));
const events = trace.traceEvents || [];
const names = new Map(), order = new Map();
for (const e of events) {
	if (e.ph === "M" && e.name === "thread_name") names.set(e.tid, e.args.name);
	if (e.ph === "M" && e.name === "thread_sort_index") order.set(e.tid, e.args.sort_index);
}
const from = fromArg ? Number(fromArg) * 1e3 : -Infinity, to = toArg ? Number(toArg) * 1e3 : Infinity;
const spans = events.filter((e) => e.ph === "X" && e.ts + e.dur >= from && e.ts <= to);
if (!spans.length) {
	console.error(`${inPath}: no spans in the window`);
	process.exit(1);
}
const tids = [...new Set(spans.map((e) => e.tid))].sort((a, b) => (order.get(a) ?? a) - (order.get(b) ?? b));
const t0 = Math.max(from, Math.min(...spans.map((e) => e.ts)));
const t1 = Math.min(to, Math.max(...spans.map((e) => e.ts + e.dur)));
const W = 1200, left = 170, rowH = 26, top = 30, plotW = W - left - 20;
const H = top + tids.length * rowH + 40;
const x = (us) => left + ((Math.min(Math.max(us, t0), t1) - t0) / (t1 - t0)) * plotW;
const palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];
const colour = new Map();
const colourOf = (name) => {
	const key = name.replace(/ batch.*$/, "");
	if (!colour.has(key)) colour.set(key, palette[colour.size % palette.length]);
	return colour.get(key);
};
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
// The picture goes into docs/, where every file carries its licence.
const title = process.env.TRACE_SVG_TITLE || inPath;
const out = [
	"<!-- SPDX-License-Identifier: Apache-2.0 OR MIT -->",
	`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
	`<rect width="${W}" height="${H}" fill="white"/>`,
	`<text x="${left}" y="18" font-size="12">${esc(title)}: ${((t1 - t0) / 1e3).toFixed(1)} ms</text>`,
];
tids.forEach((tid, row) => {
	const y = top + row * rowH;
	out.push(`<text x="6" y="${y + 17}">${esc(names.get(tid) ?? `track ${tid}`)}</text>`);
	out.push(`<line x1="${left}" x2="${W - 20}" y1="${y + rowH}" y2="${y + rowH}" stroke="#ddd"/>`);
	for (const e of spans.filter((s) => s.tid === tid)) {
		const a = x(e.ts), b = Math.max(x(e.ts + e.dur), a + 0.5);
		const label = e.args && e.args.partition !== undefined ? `${e.name} [${e.args.partition}]` : e.name;
		out.push(`<rect x="${a.toFixed(1)}" y="${y + 3}" width="${(b - a).toFixed(1)}" height="${rowH - 6}" ` +
			`fill="${colourOf(e.name)}" stroke="white" stroke-width="0.5"><title>${esc(label)}: ` +
			`${(e.dur / 1e3).toFixed(2)} ms</title></rect>`);
		if (b - a > label.length * 6.2)
			out.push(`<text x="${(a + 3).toFixed(1)}" y="${y + 17}" fill="white">${esc(label)}</text>`);
	}
});
// a time axis: ten ticks
for (let i = 0; i <= 10; i++) {
	const us = t0 + ((t1 - t0) * i) / 10, xx = x(us), y = top + tids.length * rowH;
	out.push(`<line x1="${xx}" x2="${xx}" y1="${y}" y2="${y + 5}" stroke="black"/>`);
	out.push(`<text x="${xx - 10}" y="${y + 18}">${((us - t0) / 1e3).toFixed(0)} ms</text>`);
}
out.push("</svg>");
writeFileSync(outPath, out.join("\n") + "\n");
console.log(`${outPath}: ${spans.length} spans on ${tids.length} tracks`);
