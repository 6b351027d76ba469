// Guards the layout of src/ by its imports (README "Architecture"): no import cycle between files,
// `import type` and dynamic `import()` included; the portable core (src/core) and the edge host
// (src/hosts/edge) reach only each other and the two portable validator files, never a `node:`
// module; and the core never imports a host. The imports are read with TypeScript's own
// preprocessor (`ts.preProcessFile`: every import, export-from and import() a file names) rather
// than a dependency-graph library, which would be a new dependency. tsconfig.portable.json checks
// the same folders by compiling them without Node's types.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

const SOURCE_ROOT = path.join(REPO_ROOT, 'src');
/** The folders the portable compile names, as `src/`-relative prefixes. */
const PORTABLE_FOLDERS = ['core/', 'hosts/edge/'];
/** What else the portable folders may import: the validator port and the validator that runs anywhere. */
const PORTABLE_FILES = ['validators/validator.ts', 'validators/cfworker-validator.ts'];

/** A file of src/ (a `src/`-relative path with `/`) and what it imports. */
interface SourceFile {
  file: string;
  /** `src/`-relative paths of the files of src/ it imports. */
  imports: string[];
  /** Specifiers that are not relative paths: packages and `node:` modules. */
  packages: string[];
  /** Relative specifiers that name no file of src/. */
  unresolved: string[];
}

async function readSourceFiles(): Promise<Map<string, SourceFile>> {
  const names = (await fs.readdir(SOURCE_ROOT, { recursive: true }))
    .map((name) => name.split(path.sep).join('/'))
    .filter((name) => name.endsWith('.ts'))
    .sort();
  const known = new Set(names);
  const files = new Map<string, SourceFile>();
  for (const file of names) {
    const text = await fs.readFile(path.join(SOURCE_ROOT, file), 'utf8');
    const found: SourceFile = { file, imports: [], packages: [], unresolved: [] };
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!specifier.startsWith('.')) {
        found.packages.push(specifier);
        continue;
      }
      // NodeNext: a source file is imported by its emitted name (`./x.js` for x.ts).
      const target = path.posix.join(path.posix.dirname(file), specifier);
      const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.d.ts'), target];
      const resolved = candidates.find((candidate) => known.has(candidate));
      if (resolved) found.imports.push(resolved);
      else found.unresolved.push(specifier);
    }
    files.set(file, found);
  }
  return files;
}

/** Every import cycle, one per strongly connected group of files (Tarjan), each as a closed path `a → b → a`. */
function findCycles(files: Map<string, SourceFile>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    lowest.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of files.get(file)!.imports) {
      if (!order.has(next)) {
        visit(next);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(next)!));
      } else if (onStack.has(next)) {
        lowest.set(file, Math.min(lowest.get(file)!, order.get(next)!));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || files.get(file)!.imports.includes(file)) groups.push(group);
  };
  for (const file of files.keys()) if (!order.has(file)) visit(file);
  return groups.map((group) => closedPath(files, new Set(group)));
}

/** One shortest cycle through the group's first file (alphabetically), found breadth-first inside the group. */
function closedPath(files: Map<string, SourceFile>, group: Set<string>): string[] {
  const start = [...group].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of files.get(file)!.imports) {
      if (!group.has(next)) continue;
      if (next === start) {
        const cycle = [file];
        while (cycle[0] !== start) cycle.unshift(cameFrom.get(cycle[0]!)!);
        return [...cycle, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function isPortable(file: string): boolean {
  return PORTABLE_FOLDERS.some((folder) => file.startsWith(folder));
}

let files: Map<string, SourceFile>;
beforeAll(async () => {
  files = await readSourceFiles();
});

describe('the layout of src/', () => {
  it('has no import cycle between files', () => {
    const cycles = findCycles(files).map((cycle) => cycle.map((file) => `src/${file}`).join(' → '));
    expect(
      cycles,
      `import cycles (move the declaration both sides need into a file of its own, or to the file lower in the layering):\n${cycles.join('\n')}\n`,
    ).toEqual([]);
  });

  it('resolves every relative import to a file of src/ (an unread import would hide a cycle)', () => {
    const unresolved = [...files.values()].flatMap(({ file, unresolved }) =>
      unresolved.map((specifier) => `src/${file} imports ${specifier}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('keeps the portable core and the edge host to themselves and the portable validators, with no node: module', () => {
    const breaches: string[] = [];
    for (const { file, imports, packages } of files.values()) {
      if (!isPortable(file)) continue;
      for (const target of imports) {
        if (!isPortable(target) && !PORTABLE_FILES.includes(target))
          breaches.push(`src/${file} imports src/${target}, which is not portable`);
      }
      for (const specifier of packages) {
        if (specifier.startsWith('node:')) breaches.push(`src/${file} imports ${specifier}`);
        else breaches.push(`src/${file} imports the package ${specifier} (the portable code uses none)`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('keeps the core free of the hosts', () => {
    const breaches = [...files.values()].flatMap(({ file, imports }) =>
      file.startsWith('core/')
        ? imports.filter((target) => target.startsWith('hosts/')).map((target) => `src/${file} imports src/${target}`)
        : [],
    );
    expect(breaches).toEqual([]);
  });

  it('reads the imports it guards (a scanner that finds nothing would pass everything)', () => {
    expect(files.size).toBeGreaterThan(100);
    const bridge = files.get('hosts/node/start-bridge.ts')!;
    expect(bridge.imports).toContain('core/mcp/mcp-session.ts');
    expect(files.get('core/tree/uri-template.ts')!.imports).toContain('core/tree/uri-template-matcher.ts');
  });
});
