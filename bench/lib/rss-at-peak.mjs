// What a process's RSS is made of at its peak (CONTRIBUTING "Memory"): runs a command, samples
// /proc/<pid>/status every 50 ms from outside (the build's timers do not run while a stage
// computes), keeps /proc/<pid>/smaps at each new high, and prints on stderr, when the command
// ends, the peak split by what maps it: Node's own files, glibc's main arena ([heap]), glibc's
// thread arenas (64 MiB reservations), resizable ArrayBuffers (grownTypedArray's 1 GiB
// reservations, only their written start counts), V8's heap pages (256 KiB chunks) and the rest.
// Linux only. Run: node bench/lib/rss-at-peak.mjs node bench/content-scale.mjs
// (SIZES=100000 SEARCH=1 before it, as that bench takes them). RSS_AT_PEAK_SMAPS=<file> also
// writes the peak's smaps there.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const SAMPLE_MS = 50;
const KIB = 1024;
const MIB = 1024 * KIB;
/** glibc's thread arenas are reserved 64 MiB at a time, at 64 MiB-aligned addresses (HEAP_MAX_SIZE). */
const ARENA_RESERVATION = 64 * MIB;
/** grownTypedArray reserves at least this much address space per array (grown-typed-array.ts). */
const RESIZABLE_RESERVATION = 512 * MIB;
const V8_PAGE = 256 * KIB;

function rssKib(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

/** The smaps text as mappings: start, end, permissions, name, Rss in KiB. */
function mappingsOf(smaps) {
  const mappings = [];
  for (const line of smaps.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      mappings.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3],
        name: head[4] || '',
        rssKib: 0,
      });
    } else if (line.startsWith('Rss:') && mappings.length > 0) {
      mappings[mappings.length - 1].rssKib = Number(line.split(/\s+/)[1]);
    }
  }
  return mappings;
}

/** A mapping's kind; an anonymous one by its shape and the reservation (---p) that follows it. */
function kindOf(mapping, next) {
  if (mapping.name === '[heap]') return 'glibc main arena ([heap])';
  if (mapping.name.startsWith('/')) return mapping.name.includes('/node') ? 'node binary' : 'shared libraries';
  if (mapping.name !== '') return mapping.name;
  const size = Number(mapping.end - mapping.start);
  const reserved =
    next && next.start === mapping.end && next.perms.startsWith('---') ? Number(next.end - next.start) : 0;
  const start = Number(mapping.start % BigInt(ARENA_RESERVATION));
  if (size + reserved >= RESIZABLE_RESERVATION) return 'resizable ArrayBuffers (grownTypedArray)';
  if (start === 0 && size + reserved === ARENA_RESERVATION) return 'glibc thread arenas';
  if (size % V8_PAGE === 0 && Number(mapping.start % BigInt(V8_PAGE)) === 0) return 'V8 heap pages (256 KiB)';
  return 'other anonymous';
}

function breakdown(smaps) {
  const mappings = mappingsOf(smaps);
  const byKind = new Map();
  mappings.forEach((mapping, index) => {
    if (mapping.rssKib === 0) return;
    const kind = kindOf(mapping, mappings[index + 1]);
    const entry = byKind.get(kind) ?? { rssKib: 0, mappings: 0 };
    entry.rssKib += mapping.rssKib;
    entry.mappings += 1;
    byKind.set(kind, entry);
  });
  return [...byKind].sort((a, b) => b[1].rssKib - a[1].rssKib);
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node bench/lib/rss-at-peak.mjs <command> [args…]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit' });
const startedAt = performance.now();
let peak = { rssKib: 0, atMs: 0, smaps: '' };
const sampler = setInterval(() => {
  try {
    const rss = rssKib(child.pid);
    // A copy per MiB of new high, not per sample: smaps is a few hundred KiB of text.
    if (rss > peak.rssKib + KIB) {
      peak = {
        rssKib: rss,
        atMs: performance.now() - startedAt,
        smaps: readFileSync(`/proc/${child.pid}/smaps`, 'utf8'),
      };
    }
  } catch {
    // The child ended between two samples.
  }
}, SAMPLE_MS);
child.on('exit', (code, signal) => {
  clearInterval(sampler);
  const lines = [
    `[rss-at-peak] peak ${(peak.rssKib / KIB).toFixed(1)} MiB sampled at ${(peak.atMs / 1000).toFixed(1)} s of ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  ];
  for (const [kind, { rssKib, mappings }] of breakdown(peak.smaps))
    lines.push(`[rss-at-peak]   ${(rssKib / KIB).toFixed(1).padStart(7)} MiB  ${kind} (${mappings} mappings)`);
  process.stderr.write(`${lines.join('\n')}\n`);
  if (process.env.RSS_AT_PEAK_SMAPS) writeFileSync(process.env.RSS_AT_PEAK_SMAPS, peak.smaps);
  process.exitCode = signal ? 1 : (code ?? 1);
});
