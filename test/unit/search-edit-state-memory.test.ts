// The search edit state's recorder (tree-writer/search-edit-state-recorder.ts) keeps what it notes
// per document (its kept entry's place and two digests) in a scratch file of rows, not in memory: a
// first build of 100,000 documents notes every one of them during the index step's peak. The kept
// documents are a stand-in giving each note a fresh entry whose record names the noted source, as
// the writer's would (so every row is a found one, its digests written).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KeptLlmsEntries } from '../../src/tree-writer/llms-kept-entries.js';
import type { KeptSearchDocuments } from '../../src/tree-writer/search-kept-documents.js';
import { SearchEditStateRecorder } from '../../src/tree-writer/search-edit-state-recorder.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const DIGEST_BYTES = 32;

/** Kept documents that appended one more entry before each note, under the source `record` names. */
function keptDocumentsStandIn() {
  const record = new Uint8Array(2 * DIGEST_BYTES + 1);
  record[DIGEST_BYTES] = DIGEST_BYTES;
  const appended = { count: 0, last: { part: 0, index: 0, offset: 0, length: 120, fieldsOffset: 40 } };
  return {
    kept: {
      get appended() {
        return appended;
      },
      get lastRecord() {
        return record;
      },
    } as unknown as KeptSearchDocuments,
    /** The next document's entry, appended under `source`. */
    append(source: Uint8Array, number: number) {
      appended.count += 1;
      appended.last = {
        part: number >>> 12,
        index: number & 0xfff,
        offset: number * 120,
        length: 120,
        fieldsOffset: 40,
      };
      record.fill(number & 0xff, 0, DIGEST_BYTES);
      record.set(source, DIGEST_BYTES + 1);
    },
  };
}

describe('the search edit state recorder', () => {
  it('notes 200,000 documents without holding their rows in memory', async () => {
    const project = await temporaryFolder();
    const file = path.join(project, '.staticmcp', 'search-edit-state.bin');
    const standIn = keptDocumentsStandIn();
    const recorder = new SearchEditStateRecorder(file, standIn.kept, {} as KeptLlmsEntries);
    const source = new Uint8Array(DIGEST_BYTES);
    const count = 200_000;
    const before = process.memoryUsage().rss;
    for (let arrival = 0; arrival < count; arrival++) {
      source.fill(arrival & 0xff);
      source[0] = arrival >>> 8;
      standIn.append(source, arrival);
      recorder.note(arrival, source);
    }
    // 88 bytes a document (six numbers and two digests): ~17.6 MB when the rows were held.
    const grownBytes = process.memoryUsage().rss - before;
    expect(grownBytes).toBeLessThan(6 * 1024 * 1024);
    const spills = path.join(project, '.staticmcp', 'search-edit-state.spills');
    expect(readdirSync(spills)).toHaveLength(1);
    // Without kept documents committed no state is written, and the rows file goes too.
    recorder.commit();
    expect(readdirSync(spills)).toHaveLength(0);
    expect(existsSync(file)).toBe(false);
  });
});
