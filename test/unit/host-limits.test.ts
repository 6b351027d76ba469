// The call-file budget the pack step works to (builder/host-limits.ts): the default one keeps room
// for a search index, so that the calls, the index and the build's own files fit Cloudflare's
// free plan together; a budget the user set is used as it is.
import { describe, expect, it } from 'vitest';
import {
  CLOUDFLARE_FREE_FILE_LIMIT,
  callFileBudget,
  DEFAULT_MAX_CALL_FILES,
  checkCallFileBudget,
} from '../../src/builder/host-limits.js';
import { SEARCH_MAX_FILES, SEARCH_MAX_TEXT_FILES } from '../../src/tree-writer/search-index-targets.js';

const CALLS_ONLY = { resources: false };
const WITH_TEXT = { resources: true };

describe('the call-file budget beside a search index', () => {
  it('keeps room for the largest index under the default budget, and only there', () => {
    const withIndex = callFileBudget(DEFAULT_MAX_CALL_FILES, CALLS_ONLY);
    // Calls up to the budget, the largest index, and 100 more files (the build's 13, resources) fit.
    expect(withIndex + SEARCH_MAX_FILES + 100).toBeLessThanOrEqual(CLOUDFLARE_FREE_FILE_LIMIT);
    // The 650,000-document Wikipedia-shaped tree packs its calls into 16,649 files: not packed harder.
    expect(withIndex).toBeGreaterThanOrEqual(16_649);
    expect(callFileBudget(DEFAULT_MAX_CALL_FILES, undefined)).toBe(DEFAULT_MAX_CALL_FILES);
    for (const given of [0, 20, 50_000]) expect(callFileBudget(given, CALLS_ONLY)).toBe(given);
  });

  it("keeps the larger room of an index that stores text: its title part's", () => {
    const withText = callFileBudget(DEFAULT_MAX_CALL_FILES, WITH_TEXT);
    expect(withText + SEARCH_MAX_TEXT_FILES + 100).toBeLessThanOrEqual(CLOUDFLARE_FREE_FILE_LIMIT);
    // Still room for thousands of call files beside a content tree's index.
    expect(withText).toBeGreaterThanOrEqual(8_000);
    expect(callFileBudget(20, WITH_TEXT)).toBe(20);
  });

  it('says when a tree was packed to leave that room', () => {
    const [warning] = checkCallFileBudget(18_000, DEFAULT_MAX_CALL_FILES, undefined, CALLS_ONLY);
    expect(warning?.message).toContain(
      `over a budget of ${callFileBudget(DEFAULT_MAX_CALL_FILES, CALLS_ONLY).toLocaleString('en-US')} (limits.maxCallFiles in staticmcp.json, or --max-call-files, less 2,104 files kept for the search index)`,
    );
    const [textWarning] = checkCallFileBudget(10_000, DEFAULT_MAX_CALL_FILES, undefined, WITH_TEXT);
    expect(textWarning?.message).toContain('less 10,204 files kept for the search index)');
    expect(checkCallFileBudget(18_000, DEFAULT_MAX_CALL_FILES, undefined, undefined)).toEqual([]);
  });
});
