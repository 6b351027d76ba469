// Whole numbers with thousands separators for messages (20,000), without Intl: the first
// toLocaleString call loads ICU's locale data, ~8 MB of resident memory, which was the largest
// single step of a 40,000-call build's peak (its host-limit warning was the first to format one).
export function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
