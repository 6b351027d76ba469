// Damaged search parts read by the two hosts that read a tree from elsewhere: the tree's worker in
// workerd (through ASSETS) and `serve <URL>` (over HTTP, by byte range). The mutation set is the
// folder reader's (test/unit/search-index.test.ts): cut and flipped term, title and document parts
// and indexes, huge lengths, names outside the index, thousands of table rows, inline or in a table
// file. Every search and fetch is answered on its own: results, or an error saying the index is
// damaged and why; never a crash or a stall; the other tool still answered. The search index is one
// per tree, so each mutation is a copy of one indexed tree, all served by one static host, and
// each by a worker of its own, all in one workerd. Serve's session reads each by URL in this
// process (its memory measured while they read), and one `serve <URL>` process the largest reads.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MAX_PACK_BYTES } from '../../src/core/packs/pack-format.js';
import { buildJson } from '../helpers/cli.js';
import {
  type CallAnswer,
  closeDamageHosts,
  filesOf,
  flipEvery48,
  HOSTILE_PACK_NAMES,
  hostFolder,
  MAX_SERVE_GROWTH_BYTES,
  MAX_SERVE_PEAK_BYTES,
  peakBytesOf,
  reencodeIndex,
  resetPeakBytes,
  rewrite,
  serveUrl,
  textOf,
  workersOf,
} from '../helpers/damaged-trees.js';
import { connectInProcess } from '../helpers/in-process-bridge.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

afterAll(closeDamageHosts);

/** A search damage, applied to a copy of the indexed tree. */
type SearchDamage = (tree: string) => void;

const SEARCH = path.join('packs', 'search.index');
const TERMS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma'];
const QUERIES = ['alpha', 'kappa sigma', 'zeta theta'];

function searchFiles(tree: string, part: string, extension: string): string[] {
  return filesOf(path.join(tree, SEARCH, part), extension);
}

function editManifestSearch(tree: string, change: (search: Record<string, unknown>) => void): void {
  const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
  change(manifest.staticmcp.search);
  writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
}

/**
 * Name → its damage, and what it breaks: the search tool (`search`), fetch (`fetch`), or nothing a
 * client can tell (`none`). The folder reader's set: cut and flipped parts, huge lengths, names
 * outside the index, thousands of table rows.
 */
const SEARCH_DAMAGES: Record<
  string,
  {
    damage: SearchDamage;
    breaks: 'search' | 'fetch' | 'both' | 'none';
    /** What it breaks for the worker (whose host sends whole files: no term or title index read), when not the same. */
    workerBreaks?: 'fetch' | 'none';
  }
> = {
  cutterms: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'terms', '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, 24));
    },
    breaks: 'search',
  },
  // Terms flipped (search) and the documents' indexes cut (fetch), one tree for both. (These notes
  // are short: each one's fetch record is its excerpt source, in a title pack; no document pack.)
  flipterms: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'terms', '.pack')) rewrite(pack, flipEvery48);
      for (const index of searchFiles(tree, 'documents', '.idx'))
        rewrite(index, (bytes) => bytes.subarray(0, bytes.length >> 1));
    },
    breaks: 'both',
  },
  // The title packs hold the notes' excerpt sources, which are their fetch records too.
  cuttitles: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'titles', '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, 24));
    },
    breaks: 'both',
  },
  // The worker's host sends whole files: it finds a word in its pack, named by the table's pack
  // rows, and needs no term index; serve <URL> reads ranges, through the index.
  cuttermindex: {
    damage: (tree) => {
      for (const index of searchFiles(tree, 'terms', '.idx')) rewrite(index, (bytes) => bytes.subarray(0, 30));
    },
    breaks: 'search',
    workerBreaks: 'none',
  },
  // Pack rows naming no pack of the index (a path, a name that is not one, a wrong length): each
  // lookup goes through the index instead.
  hostilepackrows: {
    damage: (tree) =>
      editManifestSearch(tree, (search) => {
        // The rows as the table stores them: one text, a line per pack (`<first key> <name> <bytes>`).
        const rows = (search.termPacks as string).split('\n').map((line) => line.split(' '));
        search.termPacks = rows
          .map((row, position) =>
            position % 3 === 0
              ? [row[0], '../../mcp.json', row[2]]
              : position % 3 === 1
                ? [row[0]]
                : [row[0], row[1], 1e12],
          )
          .map((row) => row.join(' '))
          .join('\n');
        search.titlePacks = 'not rows';
      }),
    breaks: 'none',
  },
  hugelength: {
    damage: (tree) => {
      for (const part of ['terms', 'titles', 'documents'])
        for (const index of searchFiles(tree, part, '.idx'))
          reencodeIndex(index, (packs, entries) => {
            for (const pack of packs) pack.length = MAX_PACK_BYTES;
            for (const entry of entries) entry.recordLength = MAX_PACK_BYTES - entry.recordOffset;
          });
    },
    breaks: 'both',
    // Its term and title packs are sound, found by the pack rows: only fetch needs an index.
    workerBreaks: 'fetch',
  },
  outsidepack: {
    damage: (tree) => {
      for (const part of ['terms', 'titles', 'documents'])
        for (const [position, index] of searchFiles(tree, part, '.idx').entries())
          reencodeIndex(index, (packs) => {
            for (const pack of packs) pack.path = HOSTILE_PACK_NAMES[position % HOSTILE_PACK_NAMES.length]!;
          });
    },
    breaks: 'both',
    // Its term and title packs are sound, found by the pack rows: only fetch needs an index.
    workerBreaks: 'fetch',
  },
  // The table in mcp.json names a term index outside the search folder: a reader checks a row when
  // a query first needs it, so that row is never read and each search that needs it (serve <URL>
  // finds words through the term index) names the damage; fetch needs no term row. The worker finds
  // words by the pack rows and needs none.
  outsidetable: {
    damage: (tree) =>
      editManifestSearch(tree, (search) => {
        (search.terms as { index: string }[])[0]!.index = 'packs/../mcp.json';
      }),
    breaks: 'search',
    workerBreaks: 'none',
  },
  // 5,000 term rows inline, each naming the one real term index: every lookup still finds its term.
  manyrows: {
    damage: (tree) => editManifestSearch(tree, (search) => manyTermRows(search)),
    breaks: 'none',
  },
  // The same rows in a table file (the shape a build writes past 16 KiB of rows).
  manyrowsfile: {
    damage: (tree) => moveRowsToFile(tree, (rows) => manyTermRows(rows)),
    breaks: 'none',
  },
  cuttablefile: {
    damage: (tree) =>
      moveRowsToFile(
        tree,
        () => {},
        (bytes) => bytes.subarray(0, bytes.length >> 1),
      ),
    breaks: 'both',
  },
};

function manyTermRows(search: Record<string, unknown>): void {
  const index = (search.terms as { index: string }[])[0]!.index;
  search.terms = Array.from({ length: 5000 }, (_, row) => ({
    first: row === 0 ? '00' : row.toString(16).padStart(4, '0'),
    index,
  }));
}

/** The manifest's search rows moved into a table file (edited by `change`, its bytes by `cut`). */
function moveRowsToFile(
  tree: string,
  change: (rows: Record<string, unknown>) => void,
  cut: (bytes: Uint8Array) => Uint8Array = (bytes) => bytes,
): void {
  const tablePath = `${SEARCH.split(path.sep).join('/')}/0123456789abcdef.table.json`;
  editManifestSearch(tree, (search) => {
    const rows: Record<string, unknown> = {
      terms: search.terms,
      titles: search.titles,
      documents: search.documents,
    };
    change(rows);
    writeFileSync(path.join(tree, tablePath), cut(new TextEncoder().encode(JSON.stringify(rows))));
    delete search.terms;
    delete search.titles;
    delete search.documents;
    search.table = tablePath;
  });
}

describe('damaged search parts read from elsewhere', () => {
  /** Every damaged tree, a folder each below one root. */
  let root: string;

  beforeAll(async () => {
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, position) => [
        `resources/doc-${position}.md`,
        `# Note ${position}\n\n${Array.from({ length: 12 }, (_, word) => TERMS[(position * 7 + word * word) % TERMS.length]).join(' ')}\n`,
      ]),
    );
    const project = await makeProject({ tools: { hello: 'ok' }, config: { search: true }, files });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    root = temporaryFolderSync('staticmcp-damaged-search-');
    for (const [name, { damage }] of Object.entries(SEARCH_DAMAGES)) {
      cpSync(report.outDir, path.join(root, name), { recursive: true });
      damage(path.join(root, name));
    }
  }, 60_000);

  /** A call's answer, or the JSON-RPC error it got, as one text (an error of the call alone). */
  async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<CallAnswer> {
    try {
      return (await client.callTool({ name, arguments: args })) as CallAnswer;
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `JSON-RPC error: ${(error as Error).message}` }] };
    }
  }

  /** The answers of one damaged tree: each search and fetch an answer or an error naming the damage. */
  async function expectCleanSearch(client: Client, name: string, host: 'worker' | 'serve'): Promise<void> {
    const damage = SEARCH_DAMAGES[name]!;
    const breaks = (host === 'worker' ? damage.workerBreaks : undefined) ?? damage.breaks;
    for (const query of QUERIES) {
      const answer = (await callText(client, 'search', { query })) as CallAnswer & {
        structuredContent?: { results: unknown[] };
      };
      if (breaks === 'search' || breaks === 'both') {
        expect(answer.isError, `${name} ${query}`).toBe(true);
        expect(textOf(answer), name).toMatch(/damaged|cannot be read|build and deploy the tree again/);
      } else expect(answer.structuredContent?.results.length, `${name} ${query}`).toBeGreaterThan(0);
    }
    const fetched = await callText(client, 'fetch', { id: 'resources/doc-3_md.json' });
    if (breaks === 'fetch' || breaks === 'both') {
      expect(fetched.isError, name).toBe(true);
      expect(textOf(fetched), name).toMatch(/damaged|cannot be read|build and deploy the tree again/);
    } else expect(textOf(fetched), name).toMatch(/Note 3/);
    // The server itself is untouched: its other tool answers.
    expect(textOf(await callText(client, 'hello', {})), name).toMatch(/ok/);
  }

  it('the worker in workerd answers every search and fetch alone, naming the damage', async () => {
    // Each damaged tree by its own worker, as if deployed alone; one workerd runs them all.
    const names = Object.keys(SEARCH_DAMAGES);
    const connected = await workersOf(Object.fromEntries(names.map((name) => [name, path.join(root, name)])));
    await Promise.all(names.map((name) => expectCleanSearch(connected[name]!.client, name, 'worker')));
  }, 90_000);

  it('serve <URL> answers every search and fetch alone, naming the damage, in bounded memory', async () => {
    const base = await hostFolder(root);
    const names = Object.keys(SEARCH_DAMAGES);
    // Serve's session over each damaged tree by URL, in this process (connectInProcess opens the
    // URL source serve opens): the peak this process reaches while all read their damage at once
    // is held to what one serve process may add to its resting size.
    const restingBytes = resetPeakBytes();
    const clients = await Promise.all(names.map((name) => connectInProcess(`${base}${name}/`)));
    try {
      await Promise.all(names.map((name, position) => expectCleanSearch(clients[position]!, name, 'serve')));
      expect(peakBytesOf(process.pid) - restingBytes).toBeLessThan(MAX_SERVE_GROWTH_BYTES);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    // And the command itself, over the damage that promises the largest reads (hugelength).
    const { client, pid } = await serveUrl(`${base}hugelength/`);
    await expectCleanSearch(client, 'hugelength', 'serve');
    expect(peakBytesOf(pid!)).toBeLessThan(MAX_SERVE_PEAK_BYTES);
  }, 90_000);
});
