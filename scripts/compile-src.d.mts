// Types of scripts/compile-src.mjs for test/global-setup.ts, which imports it.
/** Writes `<outDir>/<path>.js` for every `src/<path>.ts` (src/page left out); rejects when one does not compile. */
export function compileSources(outDir: string): Promise<void>;
