// Bounded concurrency for the build (the one module that imports p-map).
import pMap, { pMapSkip } from 'p-map';

export function mapConcurrent<Input, Output>(
  items: Iterable<Input>,
  mapper: (item: Input, index: number) => Promise<Output>,
  concurrency: number,
): Promise<Output[]> {
  return pMap(items, mapper, { concurrency: Math.max(1, concurrency) });
}

/**
 * Runs `worker` over a stream that is pulled only as workers free up, keeping no results: memory
 * stays flat however long the stream is.
 */
export async function forEachConcurrent<Input>(
  items: Iterable<Input> | AsyncIterable<Input>,
  worker: (item: Input) => Promise<void>,
  concurrency: number,
): Promise<void> {
  await pMap(
    items,
    async (item) => {
      await worker(item);
      return pMapSkip;
    },
    { concurrency: Math.max(1, concurrency) },
  );
}
