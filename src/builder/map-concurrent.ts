// Bounded concurrency for the build (the one module that imports p-map).
import pMap from 'p-map';

export function mapConcurrent<Input, Output>(
  items: Iterable<Input>,
  mapper: (item: Input, index: number) => Promise<Output>,
  concurrency: number,
): Promise<Output[]> {
  return pMap(items, mapper, { concurrency: Math.max(1, concurrency) });
}

/**
 * Runs `worker` over a stream that is pulled only as workers free up, keeping nothing per item:
 * memory stays flat however long the stream is (p-map keeps a result slot per item, even a
 * skipped one: 8 bytes a call, 5 MB at 650,000). The first error stops the pulling; the items in
 * flight finish, then the stream is closed and the error thrown.
 */
export async function forEachConcurrent<Input>(
  items: Iterable<Input> | AsyncIterable<Input>,
  worker: (item: Input) => Promise<void>,
  concurrency: number,
): Promise<void> {
  const iterator: Iterator<Input> | AsyncIterator<Input> =
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  const pull = async (): Promise<void> => {
    while (!failure) {
      // An async generator queues concurrent next() calls, so each item goes to exactly one worker.
      const step = await iterator.next();
      if (step.done) return;
      try {
        await worker(step.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, pull));
  } catch (error) {
    failure ??= { error };
  }
  if (failure) {
    await iterator.return?.();
    throw failure.error;
  }
}
