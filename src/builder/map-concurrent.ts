// Bounded concurrency for the build (the one module that imports p-map).
import pMap from 'p-map';

export function mapConcurrent<Input, Output>(
  items: Iterable<Input>,
  mapper: (item: Input, index: number) => Promise<Output>,
  concurrency: number,
): Promise<Output[]> {
  return pMap(items, mapper, { concurrency: Math.max(1, concurrency) });
}
