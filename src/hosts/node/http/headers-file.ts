// The `_headers` file of Netlify and Cloudflare Pages, which our trees ship (content types, cache
// rules, CORS): parsed into rules so `serve --http` answers with the headers the deployed site
// would. A URL pattern line, then indented `Name: value` lines; `*` matches anything (slashes too),
// `:name` one segment. Detaching headers (`! Name`) is not supported and is ignored.

export interface HeaderRule {
  pattern: RegExp;
  headers: [name: string, value: string][];
}

/** Never throws: lines it cannot read are skipped, like the hosts do. */
export function parseHeadersFile(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: HeaderRule | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      current = line.startsWith('/') ? { pattern: patternToRegExp(line.trim()), headers: [] } : undefined;
      if (current) rules.push(current);
      continue;
    }
    const separator = line.indexOf(':');
    if (!current || separator <= 0) continue;
    const name = line.slice(0, separator).trim();
    const value = line.slice(separator + 1).trim();
    if (/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) current.headers.push([name, value]);
  }
  return rules;
}

/** The headers every matching rule adds to a URL path, in file order (a later rule wins a name). */
export function headersFor(rules: readonly HeaderRule[], urlPath: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!rule.pattern.test(urlPath)) continue;
    for (const [name, value] of rule.headers) headers[name.toLowerCase()] = value;
  }
  return headers;
}

function patternToRegExp(pattern: string): RegExp {
  // Absolute URLs (https://host/path) in the file name one host; locally only the path counts.
  const path = pattern.replace(/^https?:\/\/[^/]+/i, '');
  let source = '';
  for (const part of path.split(/(\*|:[A-Za-z_][A-Za-z0-9_]*)/)) {
    if (part === '*') source += '.*';
    else if (part.startsWith(':') && part.length > 1) source += '[^/]+';
    else source += part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
