// What reading one file through the ASSETS binding costs the workerd process, by file size, as the
// edge benches run it (bench/lib/edge-lib.mjs): miniflare's asset router and asset worker (the
// JavaScript that serves a Workers site's files locally, in the same process), and workerd's native
// file service with Range dropped (nativeFiles). On Cloudflare the asset side runs outside the
// worker's isolate and is not billed to it ("requests to static assets are free"), so the gap
// between the two is CPU that local figures (bench/search-query.mjs) carry and a deployed worker
// does not. A worker at /mcp reads `?file=` `?reads=` times with arrayBuffer(); the cost of a read
// is the process's CPU for a request with 4 reads less one with none, over 4.
// Run: node bench/edge-asset-read.mjs   (REQUESTS=100 per size)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';

const REQUESTS = Number(process.env.REQUESTS ?? 100);
const SIZES_KIB = [16, 64, 256, 512, 1024, 2048];
const READS = 4;

const WORKER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    let bytes = 0;
    for (let read = 0; read < Number(url.searchParams.get('reads')); read += 1) {
      const response = await env.ASSETS.fetch(new URL('/' + url.searchParams.get('file'), url));
      bytes += (await response.arrayBuffer()).byteLength;
    }
    return new Response(String(bytes));
  },
};`;

const folder = tempDir('edge-asset-read-');
for (const kib of SIZES_KIB) {
  const bytes = new Uint8Array(kib * 1024);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 2654435761) >>> 24;
  writeFileSync(path.join(folder, `f${kib}.bin`), bytes);
}

/** Median process CPU (ms) of a request reading `file` `reads` times. */
async function requestCpuMs(site, pid, file, reads) {
  const samples = [];
  for (let round = 0; round < REQUESTS; round += 1) {
    const before = cpuNs(pid);
    const response = await fetch(new URL(`mcp?file=${file}&reads=${reads}`, site.url));
    const got = Number(await response.text());
    if (got !== (reads === 0 ? 0 : reads * Number(file.slice(1, -4)) * 1024))
      throw new Error(`${file}: read ${got} bytes`);
    samples.push((cpuNs(pid) - before) / 1e6);
  }
  return median(samples);
}

const rows = [];
for (const [label, nativeFiles] of [
  ["miniflare's asset worker", false],
  ['native file service', true],
]) {
  const site = await startWorkerdSite(folder, { workerScript: WORKER, nativeFiles });
  const pid = childPid(process.pid, 'workerd');
  try {
    await requestCpuMs(site, pid, 'f16.bin', 1);
    const empty = await requestCpuMs(site, pid, 'f16.bin', 0);
    const perRead = [];
    for (const kib of SIZES_KIB) perRead.push(((await requestCpuMs(site, pid, `f${kib}.bin`, READS)) - empty) / READS);
    rows.push({ label, empty, perRead });
  } finally {
    await site.close();
  }
}
const [asset, native] = rows;
console.log(`CPU of the workerd process (ms, median of ${REQUESTS} requests; ${READS} reads a request)`);
console.log(
  `a request reading nothing: ${asset.label} ${asset.empty.toFixed(2)}, ${native.label} ${native.empty.toFixed(2)}`,
);
SIZES_KIB.forEach((kib, index) => {
  const a = asset.perRead[index];
  const n = native.perRead[index];
  console.log(
    `a read of ${kib} KiB: ${asset.label} ${a.toFixed(3)}, ${native.label} ${n.toFixed(3)} (${(a / n).toFixed(1)}×)`,
  );
});
