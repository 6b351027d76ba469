// What a new isolate pays for the bytes it reads through the ASSETS binding (issue #40), as a cold
// search reads packs: per run a new workerd, one request that reads nothing (the isolate and its
// request path made), then one request reading FILES different files of KIB KiB each at once, as a
// cold search reads its ~10 title packs; the process's CPU over that request, less a request that
// reads nothing. Each file is read whole (arrayBuffer, as the asset source reads a pack up to
// 4 MiB) or only its first bytes: a BYOB reader filling CHUNK-KiB views until CUT KiB are in, then
// cancelled, as a reader that stops at a record's end would. edge-asset-read.mjs measures a warm
// isolate's reads, whose memory is already its own; a new isolate's first reads cost more per byte.
// Served by workerd's native file service with Range dropped (edge-lib.mjs), as search-cold-edge.mjs.
// Run: node bench/edge-cold-asset-read.mjs   (RUNS=8 FILES=10 KIB=135; CUTS=80/16,24/8: the cut
//   reads, each CUT KiB in CHUNK KiB views)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';

const RUNS = Number(process.env.RUNS ?? 8);
const FILES = Number(process.env.FILES ?? 10);
const KIB = Number(process.env.KIB ?? 135);
const CUTS = (process.env.CUTS ?? '80/16,24/8').split(',').map((cut) => cut.split('/').map(Number));

const WORKER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const files = Number(url.searchParams.get('files'));
    const cut = Number(url.searchParams.get('cut')) * 1024;
    const chunk = Number(url.searchParams.get('chunk')) * 1024;
    const readOne = async (file) => {
      const response = await env.ASSETS.fetch(new URL('/f' + file + '.bin', url));
      if (cut === 0) return (await response.arrayBuffer()).byteLength;
      const reader = response.body.getReader({ mode: 'byob' });
      const kept = new Uint8Array(cut + chunk);
      let buffer = new ArrayBuffer(chunk);
      let filled = 0;
      while (filled < cut) {
        const { done, value } = await reader.readAtLeast(chunk, new Uint8Array(buffer));
        if (value) {
          kept.set(value, filled);
          filled += value.length;
          buffer = value.buffer;
        }
        if (done || !value || value.length < chunk) break;
      }
      await reader.cancel();
      return filled;
    };
    const sizes = await Promise.all(Array.from({ length: files }, (_, file) => readOne(file)));
    return new Response(String(sizes.reduce((sum, size) => sum + size, 0)));
  },
};`;

const folder = tempDir('edge-cold-asset-read-');
mkdirSync(folder, { recursive: true });
for (let file = 0; file < FILES; file += 1) {
  const bytes = new Uint8Array(KIB * 1024);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = ((index + file) * 2654435761) >>> 24;
  writeFileSync(path.join(folder, `f${file}.bin`), bytes);
}

const modes = [
  { label: 'nothing read', query: 'files=0' },
  { label: `${FILES} × ${KIB} KiB whole`, query: `files=${FILES}&cut=0` },
  ...CUTS.map(([cut, chunk]) => ({
    label: `${FILES} × first ${cut} KiB (${chunk} KiB views)`,
    query: `files=${FILES}&cut=${cut}&chunk=${chunk}`,
  })),
];
const cpu = modes.map(() => []);
for (let run = 0; run < RUNS; run += 1) {
  // Alternating the order run by run, so a mode is not always measured right after the same one.
  const order = run % 2 === 0 ? modes.keys() : [...modes.keys()].reverse();
  for (const position of order) {
    const site = await startWorkerdSite(folder, { workerScript: WORKER, nativeFiles: true });
    try {
      const pid = childPid(process.pid, 'workerd');
      await (await fetch(new URL('mcp?files=0', site.url))).text();
      const before = cpuNs(pid);
      await (await fetch(new URL(`mcp?${modes[position].query}`, site.url))).text();
      cpu[position].push((cpuNs(pid) - before) / 1e6);
    } finally {
      await site.close();
    }
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const none = median(cpu[0]);
console.log(`CPU of the workerd process over the request (ms; median of ${RUNS} new isolates; load ${load})`);
modes.forEach((mode, position) => {
  const samples = cpu[position];
  const range = `${Math.min(...samples).toFixed(1)}–${Math.max(...samples).toFixed(1)}`;
  const more = position === 0 ? '' : `, ${(median(samples) - none).toFixed(1)} more than nothing read`;
  console.log(`${mode.label}: ${median(samples).toFixed(1)} (${range})${more}`);
});
