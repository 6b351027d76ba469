// Static hosts answer a path they do not have in ways a tree reader must not take for a broken
// file: Cloudflare Pages serves index.html with status 200 (and, with a `/*.json` rule in
// `_headers`, labelled JSON), single-page-app setups do the same elsewhere, and some hosts answer
// with an empty body. A file of the tree is JSON, which never starts with `<` and is never empty,
// so such an answer for a `.json` path means "not in this tree".

/** Whether `text`, read for the tree file `relativePath`, is a host's stand-in page rather than the file. */
export function isHostFallback(relativePath: string, text: string): boolean {
  if (!relativePath.endsWith('.json')) return false;
  const start = /[^\s\uFEFF]/.exec(text);
  return start === null || start[0] === '<';
}
