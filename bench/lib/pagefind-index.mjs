// Child of content-vs-pagefind.mjs: Pagefind 1.6 (its Node API) indexing every Markdown file
// under FOLDER (the resources of the project staticmcp builds, read one at a time as the build
// reads them) as custom records, written to OUT. Pagefind runs its own binary as a child of this
// process, which exits without being waited for: its CPU (utime+stime of all its threads) and
// peak RSS (VmHWM) are read from /proc before it closes, for the parent to add to this process's.
// Prints one JSON line: { documents, ownCpuMs, ownPeakRssMb, binaryCpuMs, binaryPeakRssMb }.
// Run: node bench/lib/pagefind-index.mjs FOLDER OUT
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as pagefind from 'pagefind';

const [folder, outputPath] = [process.argv[2], process.argv[3]];
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** CPU and peak RSS of this process's children (Pagefind's binary), summed. */
function childUsage() {
  const children = spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');
  let kib = 0;
  let ticks = 0;
  for (const pid of children.filter(Boolean)) {
    try {
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kib += Number(hwm?.[1] ?? 0);
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A helper that ended between the listing and the read.
    }
  }
  return { binaryPeakRssMb: kib / 1024, binaryCpuMs: (ticks * 1000) / TICKS_PER_SECOND };
}

const { index, errors } = await pagefind.createIndex({});
if (!index) throw new Error(`pagefind createIndex: ${errors.join('; ')}`);
let documents = 0;
for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
  const file = path.join(entry.parentPath, entry.name);
  const content = readFileSync(file, 'utf8');
  const added = await index.addCustomRecord({
    url: `/${path.relative(folder, file).replace(/\.md$/, '/')}`,
    content,
    language: 'en',
    meta: { title: /^# (.*)$/m.exec(content)?.[1] ?? entry.name },
  });
  if (added.errors.length) throw new Error(`pagefind addCustomRecord: ${added.errors.join('; ')}`);
  documents += 1;
}
const written = await index.writeFiles({ outputPath });
if (written.errors.length) throw new Error(`pagefind writeFiles: ${written.errors.join('; ')}`);
const binary = childUsage();
await pagefind.close();
const own = process.resourceUsage();
console.log(
  JSON.stringify({
    documents,
    ownCpuMs: (own.userCPUTime + own.systemCPUTime) / 1000,
    ownPeakRssMb: own.maxRSS / 1024,
    ...binary,
  }),
);
