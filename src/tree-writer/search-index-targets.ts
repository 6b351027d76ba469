// The search index writer's targets and the bound its scaling keeps (search-index-spill-writer.ts
// uses them), in a module of their own so that the build's reuse digest (builder/search-index-reuse.ts)
// covers them without loading the writer (~10 ms) on a build that reuses the previous index.

/**
 * Term indexes are smaller than call indexes: a query reads one per term, cold, so parsing and
 * reading 16 KiB instead of 64 KiB is most of its cost. bench/search-query.mjs measures both (the
 * rows they add go to the table file, read once per tree load).
 */
export const TERM_INDEX_BYTES = 16 * 1024;

/**
 * Title indexes are as small, for cold isolates: a search reads the index of each result's title
 * block, up to 10, and a new isolate parses and checks every entry of each it loads. At 650,000
 * documents 64 KiB made 8 title indexes of ~60 KB, and a cold search spent ~11 ms of its ~75 in
 * parseIndex over most of them (/work/prof/coldprof.mjs); warm, the indexes stay cached either way.
 */
export const TITLE_INDEX_BYTES = 16 * 1024;

/** The most packs and indexes one part of the index takes. */
export interface SearchPartFileLimits {
  maxPacks: number;
  maxIndexes: number;
}

/**
 * Files each part of the index takes at most before its targets grow, by what a query reads on a
 * host that ignores byte ranges (the Workers asset binding): the pack of each term, streamed up to
 * its record, so smaller term packs cost less; a title pack per result, kept whole while it fits
 * the reader's budget; one index per term (kept). Documents are read once per fetch. Targets
 * grow only as far as the limit needs (search-part-boundaries.ts counts): at 650,000
 * Wikipedia-shaped documents terms come to ~470 KB packs (1,406 of them), not 14 MB as with 150
 * files a part. SEARCH_MAX_FILES in all: the build keeps the room beside its call files
 * (builder/host-limits.ts), so the tree still deploys under a 20,000-file limit. Small corpora keep
 * the base targets (Debian's 63,000 descriptions: 14 MB of documents in 256 KiB packs).
 */
export const SEARCH_FILE_LIMITS: Readonly<
  Record<'terms' | 'titles' | 'textTitles' | 'documents', SearchPartFileLimits>
> = {
  terms: { maxPacks: 1_500, maxIndexes: 250 },
  // Title blocks of an index that stores no text (call results only) are small: few packs hold them.
  titles: { maxPacks: 900, maxIndexes: 48 },
  // Title blocks and their documents' excerpt sources, a block and its sources in one pack: a
  // cold search reads one pack per result's block, whole on a host that ignores ranges, so the
  // more packs, the less it reads. This many is the room a content tree leaves under the 20,000
  // files (the build keeps it free of call files, host-limits.ts); docs/search.md gives the sizes.
  textTitles: { maxPacks: 9_000, maxIndexes: 48 },
  documents: { maxPacks: 200, maxIndexes: 100 },
};

/** The title part's limits: larger when the index stores text, whose excerpt sources fill its packs. */
export function titleFileLimits(storesText: boolean): SearchPartFileLimits {
  return storesText ? SEARCH_FILE_LIMITS.textTitles : SEARCH_FILE_LIMITS.titles;
}
/**
 * Term packs start at 32 KiB, not the 256 KiB of call packs: a cold search reads the pack of each
 * of its terms' records (a word's and its stem's: four for two words), and a host that ignores
 * byte ranges (the Workers asset binding) sends each whole. At 6,000 Wikipedia-shaped documents
 * 256 KiB made a cold query read ~800 KiB of term packs for a few KiB of postings
 * (bench/search-cold-reads.mjs). A record larger than the target is a pack of its own.
 */
export const TERM_PACK_BYTES = 32 * 1024;
/**
 * Title packs start smaller than the others (16 KiB, not 256): a search reads one title block and
 * its documents' excerpt sources per result, up to 10 in all, and a host that ignores byte ranges
 * sends each block's whole pack. A block with its sources is often larger: then it is a pack alone.
 */
export const TITLE_PACK_BYTES = 16 * 1024;
/** Targets grow in steps of this (or of their base, when smaller), not by doubling: a part uses its limit. */
export const TARGET_STEP_BYTES = 64 * 1024;
/**
 * The files of the index at most: the parts' limits, each +1 (a last half-full file), and the table
 * file; SEARCH_MAX_TEXT_FILES with the title part of an index that stores text.
 */
export const SEARCH_MAX_FILES = 3_004;
export const SEARCH_MAX_TEXT_FILES =
  SEARCH_MAX_FILES + SEARCH_FILE_LIMITS.textTitles.maxPacks - SEARCH_FILE_LIMITS.titles.maxPacks;
/** The largest targets growing reaches: a pack closes at its target, within MAX_PACK_BYTES. */
export const MAX_SCALED_PACK_BYTES = 16 * 1024 * 1024;
export const MAX_SCALED_INDEX_BYTES = 4 * 1024 * 1024;
