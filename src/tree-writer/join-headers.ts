// A built website's own `_headers` (Netlify / Cloudflare Pages rules) joined with the tree's: ours
// first, then the site's rules in their order, ours winning on our paths. Hosts join the values of
// every rule that matches a path, so a site rule could add a second Cache-Control to mcp.json (a
// cache reading the first keeps it) or loosen the landing page's policy; so a site rule for a path
// the build owns is left out, and a rule whose pattern can match the build's paths too (`/*`,
// `/:name…`) keeps only the headers no rule of ours sets. Each left-out piece is a warning.
import { isBuildOwnedPath } from './tree-ownership.js';

interface HeaderRule {
  pattern: string;
  /** `Name: value` lines as written (trimmed), and `! Name` detach lines. */
  lines: string[];
}

function parseRules(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    if (!/^\s/.test(raw)) rules.push({ pattern: raw.trim(), lines: [] });
    else rules.at(-1)?.lines.push(raw.trim());
  }
  return rules;
}

function headerName(line: string): string {
  return line.replace(/^!\s*/, '').split(':', 1)[0]!.trim().toLowerCase();
}

/** The rule's path (a pattern's host part dropped), and whether it can match more than one top-level name. */
function pathOf(pattern: string): { path: string; broad: boolean } {
  const path = pattern.replace(/^https?:\/\/[^/]+/i, '') || '/';
  const first = path.split('/')[1] ?? '';
  return { path, broad: first.startsWith(':') || first.includes('*') };
}

export interface JoinedHeaders {
  text: string;
  /** What was left out of the site's rules, and why. */
  warnings: string[];
}

/**
 * `ours` then the site's rules. `siteOwns(path)`: paths the build owns that the site still
 * provides (its index.html and 404.html), whose rules are the site's to set.
 */
export function joinHeaders(ours: string, site: string, siteOwns: (treePath: string) => boolean): JoinedHeaders {
  const ourNames = new Set(parseRules(ours).flatMap((rule) => rule.lines.map(headerName)));
  const warnings: string[] = [];
  const kept: string[] = [];
  for (const rule of parseRules(site)) {
    if (rule.lines.length === 0) continue;
    const { path, broad } = pathOf(rule.pattern);
    // `/` is the landing page's (or the site's index.html).
    const treePath = path.replace(/^\/+/, '') || 'index.html';
    if (!broad && isBuildOwnedPath(treePath) && !siteOwns(treePath)) {
      warnings.push(
        `its rule for ${rule.pattern} is left out: ${treePath.split('/', 1)[0]} belongs to the tree, whose own rules set its headers`,
      );
      continue;
    }
    const lines = broad ? rule.lines.filter((line) => !ourNames.has(headerName(line))) : rule.lines;
    if (lines.length < rule.lines.length) {
      const dropped = rule.lines.filter((line) => !lines.includes(line)).map((line) => headerName(line));
      warnings.push(
        `its rule for ${rule.pattern} also matches the tree's own files, so it keeps only headers the tree does not set (${[...new Set(dropped)].join(', ')} left out); name the site's own paths instead (such as /assets/*)`,
      );
    }
    if (lines.length > 0) kept.push(`${rule.pattern}\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
  }
  if (kept.length === 0) return { text: ours, warnings };
  return { text: `${ours.replace(/\n*$/, '\n')}\n# The site's own rules (its _headers)\n${kept.join('\n')}`, warnings };
}
