// Option checks more than one command declares (commands never import each other; they share
// these): the same value is refused with the same words everywhere.

export function checkConcurrency(value: number): string | undefined {
  return Number.isInteger(value) && value >= 1 ? undefined : '--concurrency must be a whole number of at least 1';
}
