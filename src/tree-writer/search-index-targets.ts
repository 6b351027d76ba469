// The search index writer's targets and the bound its scaling keeps (search-index-writer.ts uses
// them), in a module of their own so that the build's reuse digest (builder/search-index-reuse.ts)
// covers them without loading the writer (~10 ms) on a build that reuses the previous index.

/**
 * Term indexes are smaller than call indexes: a query reads one per term, cold, so parsing and
 * reading 16 KiB instead of 64 KiB is most of its cost. bench/search-query.mjs measures both (the
 * rows they add go to the table file, read once per tree load).
 */
export const TERM_INDEX_BYTES = 16 * 1024;

/**
 * Packs, and indexes, a key space of the index takes at most (+1) before their targets double:
 * three spaces × (151 + 151) files stay under the 1,000 a build leaves beside its 19,000 call files
 * (limits.maxCallFiles), so a 650,000-document index still deploys under a 20,000-file limit (past
 * the largest targets, 16 MiB packs, a space grows by one file per 8-16 MiB). Small corpora keep
 * the base targets (Debian's 63,000 descriptions: 14 MB of documents in 256 KiB packs, 1.1 MB of
 * term indexes at 16 KiB: 134 halves, under the bound).
 */
export const SEARCH_FILES_PER_KIND = 150;
/** The largest targets doubling reaches: a pack closes at its target, within MAX_PACK_BYTES. */
export const MAX_SCALED_PACK_BYTES = 16 * 1024 * 1024;
export const MAX_SCALED_INDEX_BYTES = 4 * 1024 * 1024;
