// Damaged packs read by the two hosts that read a tree from elsewhere: the tree's worker in workerd
// (through ASSETS) and `serve <URL>` (over HTTP, by byte range). The mutation set is the folder
// reader's (test/unit/pack-reader.test.ts): truncated and bit-flipped packs and indexes, a host's
// HTML page for a pack, huge lengths and counts, pack names outside packs/, thousands of table
// rows. Every call is answered on its own: the right answer, or an error saying its precomputed
// answer cannot be read and why (a pack the host lacks: not precomputed); never a wrong answer, a
// crash or a stall; the other tool still answered, each host in bounded memory. One packed tree
// carries every mutation at once, a tool per mutation, so one worker and one server answer them all.
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
  HTML_PAGE,
  hostFolder,
  MAX_SERVE_PEAK_BYTES,
  MAX_WORKERD_PEAK_BYTES,
  peakBytesOf,
  reencodeIndex,
  rewrite,
  serveUrl,
  textOf,
  workerdPids,
  workerOf,
} from '../helpers/damaged-trees.js';
import { packTool } from '../helpers/packed-trees.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const wordsOf = (count: number): string[] => Array.from({ length: count }, (_, position) => `word-${position}`);
/** A tool's calls, all asked at once. */
const WORDS = wordsOf(12);
/**
 * hugelength's calls: each promised a record of MAX_PACK_BYTES, so that a reader allocating what
 * it is promised would pass either host's memory bound (30 × 24 MiB) well before it answered.
 */
const HUGE_WORDS = wordsOf(30);
const wordsFor = (tool: string): string[] => (tool === 'hugelength' ? HUGE_WORDS : WORDS);

/** A pack damage, applied to every file of its tool below packs/<tool>/. */
type PackDamage = (folder: string, tree: string, tool: string) => void;

/** Tool → its damage: the same set as the folder reader's tests. */
const PACK_DAMAGES: Record<string, PackDamage> = {
  cutpack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, bytes.length >> 1));
  },
  flippack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) rewrite(pack, flipEvery48);
  },
  htmlpack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) writeFileSync(pack, HTML_PAGE);
  },
  cutindex: (folder) => {
    for (const index of filesOf(folder, '.idx')) rewrite(index, (bytes) => bytes.subarray(0, bytes.length - 3));
  },
  flipindex: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      rewrite(index, (bytes) => {
        bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
        return bytes;
      });
  },
  // Each pack said to be as large as a pack may be, each record to reach its end: the reader asks
  // the host for megabytes where a few hundred bytes are.
  hugelength: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      reencodeIndex(index, (packs, entries) => {
        for (const pack of packs) pack.length = MAX_PACK_BYTES;
        for (const entry of entries) entry.recordLength = MAX_PACK_BYTES - entry.recordOffset;
      });
  },
  // An index header that counts four billion entries.
  hugecount: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      rewrite(index, (bytes) => {
        new DataView(bytes.buffer).setUint32(16, 0xffffffff);
        return bytes;
      });
  },
  outside: (folder) => {
    for (const [position, index] of filesOf(folder, '.idx').entries())
      reencodeIndex(index, (packs) => {
        for (const pack of packs) pack.path = HOSTILE_PACK_NAMES[position % HOSTILE_PACK_NAMES.length]!;
      });
  },
  // 5,000 rows in the table (every one but the real ones naming an index that is not there).
  manyrows: (_folder, tree, tool) => {
    const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
    const rows = Array.from({ length: 5000 }, (_, row) => ({
      first: row.toString(16).padStart(4, '0'),
      index: `packs/${tool}/absent-${row}.idx`,
    }));
    manifest.staticmcp.packs[tool] = rows;
    writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
  },
};
const DAMAGED_TOOLS = Object.keys(PACK_DAMAGES);
afterAll(closeDamageHosts);

describe('damaged packs read from elsewhere', () => {
  let packedTree: string;

  beforeAll(async () => {
    const tools = Object.fromEntries([...DAMAGED_TOOLS, 'sound'].map((tool) => [tool, 'echo-value']));
    const values = Object.fromEntries(
      [...DAMAGED_TOOLS, 'sound'].map((tool) => [tool, { values: { value: wordsFor(tool) } }]),
    );
    const project = await makeProject({ tools, config: { tools: values } });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    packedTree = path.join(temporaryFolderSync('staticmcp-damaged-'), 'tree');
    cpSync(report.outDir, packedTree, { recursive: true });
    for (const tool of [...DAMAGED_TOOLS, 'sound']) packTool(packedTree, tool);
    for (const [tool, damage] of Object.entries(PACK_DAMAGES))
      damage(path.join(packedTree, 'packs', tool), packedTree, tool);
  }, 60_000);

  /** Every call of every tool: the right answer or an error naming the damage; the sound tool whole. */
  async function expectCleanAnswers(client: Client): Promise<Record<string, string>> {
    const outcomes: Record<string, string> = {};
    for (const tool of DAMAGED_TOOLS) {
      const words = wordsFor(tool);
      const answers = (await Promise.all(
        words.map((value) => client.callTool({ name: tool, arguments: { value } })),
      )) as CallAnswer[];
      let right = 0;
      answers.forEach((answer, position) => {
        if (!answer.isError) {
          // Never a wrong answer: what is answered is the call's own.
          expect(textOf(answer), `${tool} ${words[position]}`).toBe(`${words[position]}\n`);
          right += 1;
        } else expect(textOf(answer), tool).toMatch(/precomputed answer cannot be read|was not precomputed/);
      });
      const damaged = answers.find((answer) => answer.isError);
      outcomes[tool] = damaged ? `${right} right, ${textOf(damaged)}` : `${right} right`;
    }
    for (const value of WORDS) {
      const answer = (await client.callTool({ name: 'sound', arguments: { value } })) as CallAnswer;
      expect(textOf(answer)).toBe(`${value}\n`);
    }
    return outcomes;
  }

  it('the worker in workerd answers each call alone: the right answer or the damage named', async () => {
    const before = new Set(workerdPids());
    const { client } = await workerOf(packedTree);
    const workerd = workerdPids().filter((pid) => !before.has(pid));
    const outcomes = await expectCleanAnswers(client);
    // A record promised 24 MiB long by a damaged index is not allocated at that length.
    expect(workerd.length).toBeGreaterThan(0);
    for (const pid of workerd) expect(peakBytesOf(pid)).toBeLessThan(MAX_WORKERD_PEAK_BYTES);
    // The damage that breaks records or indexes is named, not hidden as "not precomputed".
    for (const tool of ['cutpack', 'flippack', 'cutindex', 'hugelength', 'hugecount', 'outside'])
      expect(outcomes[tool], tool).toMatch(/cannot be read/);
    await client.ping();
  }, 60_000);

  it('serve <URL> answers each call alone, by byte range, in bounded memory', async () => {
    const { client, pid } = await serveUrl(await hostFolder(packedTree));
    const outcomes = await expectCleanAnswers(client);
    for (const tool of ['cutpack', 'flippack', 'cutindex', 'hugelength', 'hugecount', 'outside'])
      expect(outcomes[tool], tool).toMatch(/cannot be read/);
    await client.ping();
    expect(peakBytesOf(pid!)).toBeLessThan(MAX_SERVE_PEAK_BYTES);
  }, 60_000);
});
