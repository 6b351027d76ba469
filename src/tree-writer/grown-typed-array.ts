// Growing the typed arrays the tree writer and the pack step keep per file, outside the heap.

/** `array`, or a copy of it at least `length` long (doubling), the old values kept. */
export function grownTypedArray<T extends Uint32Array | Uint8Array | Float64Array>(
  array: T,
  length: number,
  make: (length: number) => T,
): T {
  if (array.length >= length) return array;
  const bigger = make(Math.max(length, array.length * 2));
  bigger.set(array);
  return bigger;
}
