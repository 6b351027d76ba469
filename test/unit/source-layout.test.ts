// Guards the layout of src/ by its imports (README "Architecture"): no import cycle between files,
// `import type` and dynamic `import()` included, nor between folders; no source file over
// MAX_SOURCE_LINES; the portable folders (src/core, src/hosts/edge, src/validators) reach only each
// other, never a `node:` module, and the portable compiles name folders, not files; and the core
// never imports a host. The imports are read from each file's syntax tree (`parseAst`, the
// TypeScript parser vitest's vite runs on: every import, export-from, import(), type-position
// `import('…')` and `require('…')` a file names) rather than a dependency-graph library, which
// would be a new dependency. tsconfig.portable.json checks the same folders by compiling them
// without Node's types.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAst } from 'vitest/node';
import { REPO_ROOT } from '../helpers/paths.js';

const SOURCE_ROOT = path.join(REPO_ROOT, 'src');
/** The folders the portable compile (tsconfig.portable.json) names, as `src/`-relative prefixes. */
const PORTABLE_FOLDERS = ['core/', 'hosts/edge/', 'validators/'];
/** The one package a portable folder may import: the edge's JSON Schema interpreter, in its validator plug. */
// Packages that run on every host (no node: module, no native code): the edge stems a query as the
// build stemmed the index.
const PORTABLE_PACKAGES: Record<string, string[]> = {
  'validators/': ['@cfworker/json-schema'],
  'core/search/': ['stemmer'],
};
/** CONTRIBUTING: small modules, one topic per file. */
const MAX_SOURCE_LINES = 450;

/** A file of src/ (a `src/`-relative path with `/`) and what it imports. */
interface SourceFile {
  file: string;
  lines: number;
  /** `src/`-relative paths of the files of src/ it imports. */
  imports: string[];
  /** Specifiers that are not relative paths: packages and `node:` modules. */
  packages: string[];
  /** Relative specifiers that name no file of src/. */
  unresolved: string[];
}

/** A node of the syntax tree, read only for the fields that name a module. */
interface SyntaxNode {
  type?: string;
  [field: string]: unknown;
}

/** The string a literal node holds, if it is one. */
function readStringLiteral(node: unknown): string | undefined {
  const value = (node as SyntaxNode | null | undefined)?.value;
  return typeof value === 'string' ? value : undefined;
}

/** The module specifier a node names, if it names one. */
function readSpecifier(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
    case 'ImportExpression':
      return readStringLiteral(node.source);
    case 'TSImportType': {
      // `typeof import('x')`: the specifier is a literal type wrapping the string literal.
      const argument = node.argument as SyntaxNode | undefined;
      return readStringLiteral(node.source) ?? readStringLiteral(argument?.literal) ?? readStringLiteral(argument);
    }
    case 'TSExternalModuleReference':
      return readStringLiteral(node.expression);
    case 'CallExpression': {
      const callee = node.callee as SyntaxNode | undefined;
      const [first] = node.arguments as unknown[];
      return callee?.type === 'Identifier' && callee.name === 'require' ? readStringLiteral(first) : undefined;
    }
    default:
      return undefined;
  }
}

/** Every module specifier a TypeScript file names, in the order they appear (a string or comment that looks like an import is not one). */
function listSpecifiers(text: string, file: string): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as SyntaxNode;
    const specifier = readSpecifier(node);
    if (specifier !== undefined) found.push(specifier);
    for (const [field, child] of Object.entries(node)) if (field !== 'parent') visit(child);
  };
  visit(parseAst(text, { lang: 'ts' }, file));
  return found;
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
    const found: SourceFile = { file, lines: text.split('\n').length - 1, imports: [], packages: [], unresolved: [] };
    for (const specifier of listSpecifiers(text, file)) {
      if (!specifier.startsWith('.')) {
        found.packages.push(specifier);
        continue;
      }
      // NodeNext: a source file is imported by its emitted name (`./x.js` for x.ts).
      const target = path.posix.join(path.posix.dirname(file), specifier);
      // A package the build bundles into dist/vendor/<name>.cjs (scripts/bundle-vendored.mjs): the
      // file exists beside the compiled module only, and stands for the package of that name.
      const vendored = /^vendor\/([^/]+)\.cjs$/.exec(target)?.[1];
      if (vendored !== undefined) {
        found.packages.push(vendored);
        continue;
      }
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
function findCycles(files: ReadonlyMap<string, Pick<SourceFile, 'imports'>>): string[][] {
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
function closedPath(files: ReadonlyMap<string, Pick<SourceFile, 'imports'>>, group: Set<string>): string[] {
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

/**
 * The folders of src/ as a graph: a folder imports another when one of its files imports one of
 * the other's. An edge between a folder and its own subfolder is left out: a subfolder is a room
 * of its parent (cli/ loads the commands in cli/commands/, which use cli/'s helpers).
 */
function folderGraph(files: Map<string, SourceFile>): Map<string, { imports: string[] }> {
  const folders = new Map<string, Set<string>>();
  const within = (inner: string, outer: string): boolean => inner === outer || inner.startsWith(`${outer}/`);
  for (const { file, imports } of files.values()) {
    const from = path.posix.dirname(file);
    const targets = folders.get(from) ?? new Set<string>();
    folders.set(from, targets);
    for (const target of imports) {
      const to = path.posix.dirname(target);
      if (!within(from, to) && !within(to, from)) targets.add(to);
    }
  }
  for (const targets of [...folders.values()])
    for (const to of targets) if (!folders.has(to)) folders.set(to, new Set());
  return new Map([...folders].map(([folder, targets]) => [folder, { imports: [...targets].sort() }]));
}

/** The folders a tsconfig's `include` names (`src/<folder>/**\/*.ts`), and the entries that name anything else. */
async function includedFolders(tsconfig: string): Promise<{ folders: string[]; others: string[] }> {
  const { include } = JSON.parse(await fs.readFile(path.join(REPO_ROOT, tsconfig), 'utf8')) as { include: string[] };
  const folders: string[] = [];
  const others: string[] = [];
  for (const entry of include) {
    const folder = /^src\/([a-z0-9-]+(?:\/[a-z0-9-]+)*)\/\*\*\/\*\.ts$/.exec(entry)?.[1];
    if (folder) folders.push(`${folder}/`);
    else others.push(entry);
  }
  return { folders, others };
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

  it('has no import cycle between folders', () => {
    const cycles = findCycles(folderGraph(files)).map((cycle) => cycle.map((folder) => `src/${folder}/`).join(' → '));
    expect(
      cycles,
      `folder cycles (move the files one folder needs from the other into a folder both can import):\n${cycles.join('\n')}\n`,
    ).toEqual([]);
  });

  it(`keeps every source file within ${MAX_SOURCE_LINES} lines`, () => {
    const long = [...files.values()]
      .filter(({ lines }) => lines > MAX_SOURCE_LINES)
      .map(({ file, lines }) => `src/${file} has ${lines} lines`);
    expect(long, `split these along their topics, one topic per file:\n${long.join('\n')}\n`).toEqual([]);
  });

  it('resolves every relative import to a file of src/ (an unread import would hide a cycle)', () => {
    const unresolved = [...files.values()].flatMap(({ file, unresolved }) =>
      unresolved.map((specifier) => `src/${file} imports ${specifier}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('keeps the portable folders (core, the edge host, the validators) to themselves, with no node: module', () => {
    const breaches: string[] = [];
    for (const { file, imports, packages } of files.values()) {
      if (!isPortable(file)) continue;
      for (const target of imports) {
        if (!isPortable(target)) breaches.push(`src/${file} imports src/${target}, which is not portable`);
      }
      const allowed = Object.entries(PORTABLE_PACKAGES).flatMap(([folder, names]) =>
        file.startsWith(folder) ? names : [],
      );
      for (const specifier of packages) {
        if (specifier.startsWith('node:')) breaches.push(`src/${file} imports ${specifier}`);
        else if (!allowed.includes(specifier))
          breaches.push(`src/${file} imports the package ${specifier} (the portable code uses none)`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('has the portable compiles name folders, the same ones this test checks', async () => {
    const portable = await includedFolders('tsconfig.portable.json');
    expect(portable.others, 'tsconfig.portable.json names files: name their folder').toEqual([]);
    expect(portable.folders.sort()).toEqual([...PORTABLE_FOLDERS].sort());
    const page = await includedFolders('tsconfig.page.json');
    expect(page.others, 'tsconfig.page.json names files: name their folder').toEqual([]);
    expect(page.folders).toEqual(['page/']);
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
    expect(folderGraph(files).get('core/tree-reading')!.imports).toContain('core/packs');
    expect(files.get('core/packs/pack-format.ts')!.lines).toBeGreaterThan(100);
    // A `require('…')` call and a type-position `import('…')` are imports too.
    expect(files.get('shared/ajv-validator.ts')!.packages).toEqual(expect.arrayContaining(['ajv/dist/2020', 'ajv']));
  });
});
