// The staticmcp that is running, packed as `npm pack` packs it: a gzipped tar of `package/…` with
// the files package.json's `files` names (plus package.json, README, LICENSE). `init` writes it
// beside a project's deploy files while staticmcp is not on the npm registry, so CI and the hosts'
// build images install exactly the CLI that wrote those files (`npx --yes ./deploy/staticmcp-….tgz`).
//
// Written here rather than by spawning `npm pack`: init stays fast and works without npm on PATH,
// and the bytes are the same for the same installation (fixed times and modes, sorted entries),
// so running init again commits no change. The compiled code is read from the folder this module
// runs from (dist/ of an installation, or a test build), packed under `dist/`.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The folder the running code was compiled to (`dist/` of the package) and the package's root. */
const RUNNING_DIST = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** npm packs every file with this time (1985-10-26T08:15:00Z), so the same files give the same tarball. */
const NPM_PACK_MTIME_SECONDS = 499_162_500;
const BLOCK_BYTES = 512;
/** Files npm always packs, whatever `files` says. */
const ALWAYS_PACKED = ['package.json', 'README.md', 'LICENSE'];

interface PackedFile {
  /** Path inside the package, with `/`. */
  name: string;
  /** Where the bytes are on disk. */
  source: string;
  executable: boolean;
}

async function listFolder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/** `dist/edge/*.js` → a RegExp for one package path (`*` stays within a folder). */
function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/\/+$/, '')
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${body}(/.*)?$`);
}

/** The package's files as npm would pack them: `files` entries in order, a later `!entry` dropping what earlier ones added. */
async function listPackedFiles(): Promise<PackedFile[]> {
  const manifest = JSON.parse(await fs.readFile(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    files?: string[];
  };
  const candidates = new Map<string, string>();
  // The running compiled code is the package's dist/ (in a test build it has another name).
  for (const name of await listFolder(RUNNING_DIST)) candidates.set(`dist/${name}`, path.join(RUNNING_DIST, name));
  for (const entry of manifest.files ?? []) {
    if (entry.startsWith('!') || entry.includes('*') || entry === 'dist' || entry.startsWith('dist/')) continue;
    const source = path.join(PACKAGE_ROOT, entry);
    const stat = await fs.stat(source).catch(() => undefined);
    if (stat?.isDirectory()) {
      for (const name of await listFolder(source)) candidates.set(`${entry}/${name}`, path.join(source, name));
    } else if (stat?.isFile()) candidates.set(entry, source);
  }
  const rules = (manifest.files ?? []).map((entry) => ({
    include: !entry.startsWith('!'),
    matches: patternToRegExp(entry.replace(/^!/, '')),
  }));
  const packed: PackedFile[] = [];
  for (const [name, source] of candidates) {
    const rule = rules.findLast((candidate) => candidate.matches.test(name));
    if (rule?.include !== true) continue;
    packed.push({ name, source, executable: false });
  }
  for (const name of ALWAYS_PACKED) {
    const source = path.join(PACKAGE_ROOT, name);
    if (await fs.stat(source).catch(() => undefined)) packed.push({ name, source, executable: false });
  }
  for (const file of packed) file.executable = ((await fs.stat(file.source)).mode & 0o111) !== 0;
  return packed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii');
}

/** A ustar header; a name past 100 bytes is split into prefix and name at a `/`. */
function tarHeader(name: string, size: number, mode: number): Buffer {
  const header = Buffer.alloc(BLOCK_BYTES);
  let prefix = '';
  let rest = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    rest = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(rest) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`${name} is too long for a tar entry`);
  }
  header.write(rest, 0, 100, 'utf8');
  writeOctal(header, 100, 8, mode);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, NPM_PACK_MTIME_SECONDS);
  header.write('        ', 148, 8, 'ascii');
  header.write('0', 156, 1, 'ascii');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return header;
}

/** The running staticmcp as an npm package tarball (gzipped), byte for byte the same for the same files. */
export async function packRunningPackage(): Promise<Buffer> {
  const blocks: Buffer[] = [];
  for (const file of await listPackedFiles()) {
    const bytes = await fs.readFile(file.source);
    blocks.push(tarHeader(`package/${file.name}`, bytes.length, file.executable ? 0o755 : 0o644), bytes);
    const padding = (BLOCK_BYTES - (bytes.length % BLOCK_BYTES)) % BLOCK_BYTES;
    if (padding > 0) blocks.push(Buffer.alloc(padding));
  }
  blocks.push(Buffer.alloc(BLOCK_BYTES * 2));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}
