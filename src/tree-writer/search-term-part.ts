// The term part of the spilling search index writer (search-index-spill-writer.ts) when the
// previous build's term records are kept with their layout (issue #39, "Edits in a second"): an
// edit patches the pack ranges its documents touch (search-terms-edit.ts) and packs only there,
// linking the rest (search-terms-repack.ts); and any build that keeps its records records where
// its packs and indexes lie in them for the next one (TermLayoutRecorder).
import { SEARCH_FILE_LIMITS } from './search-index-targets.js';
import { type ChangedDocument, MAX_PATCHED_DOCUMENTS, type PreviousTerms } from './search-kept-terms.js';
import type { PartBoundaries } from './search-part-boundaries.js';
import { uncountedBoundaries } from './search-part-boundaries.js';
import type { PackLayoutListener, PackReuse, WriteIndexFile } from './search-record-packer.js';
import { editTermRecords, TermsLayoutMismatch } from './search-terms-edit.js';
import { fillRangeBytes, type LayoutIndex, type LayoutPack, type TermsLayout } from './search-terms-layout.js';
import { holdsLayoutFiles, repackTermPart } from './search-terms-repack.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import type { SearchPackRow } from '../core/search/search-index-format.js';

function sameCut(left: readonly number[], right: readonly number[]): boolean {
  return left.length === right.length && left.every((value, at) => value === right[at]);
}

/**
 * The term part written from `previous`'s layout for the `changed` documents (their numbers set),
 * into `termsFile` (the new records); undefined, with nothing written, when the layout is missing,
 * damaged or not this tree's, or the part's boundaries change (its targets need counting, or its
 * divisors moved): the caller then takes the full path.
 */
export async function packTermsByLayout(
  folder: string,
  previous: PreviousTerms,
  changed: readonly ChangedDocument[],
  documentCount: number,
  averageLength: number,
  termsFile: string,
  stems: boolean,
  targets: { targetPackBytes: number; targetIndexBytes: number },
  reuse: PackReuse | undefined,
  writeFile: WriteIndexFile,
  noteMemory: (step: string) => void,
): Promise<{ rows: PackTableRow[]; packRows: SearchPackRow[]; layout: TermsLayout } | undefined> {
  const { layout } = previous;
  const previousFile = reuse?.previousFile;
  if (layout === undefined || previousFile === undefined || changed.length > MAX_PATCHED_DOCUMENTS) return undefined;
  const partReuse = { previousFile: (path: string) => previousFile(path), link: (path: string) => reuse!.link(path) };
  if (!holdsLayoutFiles(folder, layout, partReuse)) return undefined;
  try {
    const edited = editTermRecords(previous.file, layout, changed, documentCount, averageLength, termsFile, stems);
    noteMemory('search/term-records');
    const boundaries: PartBoundaries | undefined = uncountedBoundaries(
      targets,
      edited.totals,
      SEARCH_FILE_LIMITS.terms,
    );
    if (boundaries === undefined || !sameCut(boundaries.cut, layout.cut)) return undefined;
    return await repackTermPart(
      folder,
      layout,
      edited,
      termsFile,
      stems,
      boundaries,
      {
        previousFile: (path) => previousFile(path),
        link: (path) => reuse!.link(path),
      },
      writeFile,
    );
  } catch (error) {
    if (error instanceof TermsLayoutMismatch) return undefined;
    throw error;
  }
}

/** Collects where packRecords puts the term packs and indexes; `layoutOf` adds their ranges' bytes. */
export class TermLayoutRecorder implements PackLayoutListener {
  private cutOf: readonly number[] = [];
  private readonly packs: LayoutPack[] = [];
  private readonly indexes: LayoutIndex[] = [];

  cut(cut: readonly number[]): void {
    this.cutOf = cut;
  }

  pack(pack: Omit<LayoutPack, 'byte' | 'crc'>): void {
    this.packs.push({ ...pack, byte: 0, crc: 0 });
  }

  index(index: LayoutIndex): void {
    this.indexes.push(index);
  }

  /** The layout of the part made of the `count` records in `termsFile` (read once, for the ranges' bytes). */
  layoutOf(termsFile: string, count: number): TermsLayout | undefined {
    if (this.packs.length === 0 || this.indexes.length === 0) return undefined;
    const bytes = fillRangeBytes(termsFile, count, this.packs);
    return { cut: this.cutOf, count, bytes, packs: this.packs, indexes: this.indexes };
  }
}
