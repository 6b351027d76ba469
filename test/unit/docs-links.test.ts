// The docs' links go somewhere: every relative link in README.md, CONTRIBUTING.md and docs/*.md names a
// file or folder of the repository and, with a #fragment, a heading of that file (GitHub's anchors);
// and every section named in quotes ('see "Exit codes"', 'README "Installing"') is a heading of the
// file it points to, so that moving or renaming a section cannot leave a reader at a dead end.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAnchors, readLinks, readProseLines, slugOf, withoutCodeSpans } from '../helpers/markdown.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** The Markdown files a reader of the repository follows, repository-relative. */
function listDocs(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'), { recursive: true })
    .map((name) => path.posix.join('docs', String(name).split(path.sep).join('/')))
    .filter((name) => name.endsWith('.md'));
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** Why a link does not resolve, or undefined when it does. */
function checkLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', fragment] = target.split('#', 2);
  const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
  if (resolved.startsWith('../')) return `${target} leads out of the repository`;
  const absolute = path.join(REPO_ROOT, resolved);
  if (!existsSync(absolute)) return `${target}: ${resolved} does not exist`;
  if (fragment === undefined) return undefined;
  if (statSync(absolute).isDirectory() || !resolved.endsWith('.md'))
    return `${target}: an anchor in a file that is not Markdown`;
  if (!readAnchors(read(resolved)).has(decodeURIComponent(fragment)))
    return `${target}: ${resolved} has no heading whose anchor is #${fragment}`;
  return undefined;
}

/**
 * The sections a file names in quotes, with the file that must hold them: 'see "X"', 'more in "X"'
 * and 'in "X"' name a heading of the same file; 'README "X"' and 'CONTRIBUTING "X"' one of that file.
 */
function readQuotedSections(file: string, text: string): { line: number; section: string; holder: string }[] {
  const found: { line: number; section: string; holder: string }[] = [];
  for (const { line, text: prose } of readProseLines(text)) {
    const plain = withoutCodeSpans(prose);
    for (const match of plain.matchAll(
      /\b([Ss]ee|in|README|CONTRIBUTING)(?:\.md)?,?(?: section)? "([A-Z][^"]{0,80})"/g,
    )) {
      const [, word = '', section = ''] = match;
      const holder = word === 'README' ? 'README.md' : word === 'CONTRIBUTING' ? 'CONTRIBUTING.md' : file;
      found.push({ line, section, holder });
    }
  }
  return found;
}

describe('the docs', () => {
  const files = listDocs();

  it('are README.md, CONTRIBUTING.md and the pages of docs/, with their index', () => {
    expect(files).toContain('docs/README.md');
    expect(files.length).toBeGreaterThan(8);
  });

  it.each(files)('%s: every relative link names a file, and a heading when it has a #fragment', (file) => {
    const broken = readLinks(read(file)).flatMap(({ line, target }) => {
      const problem = checkLink(file, target);
      return problem ? [`${file}:${line}: ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it.each(files)('%s: every section named in quotes is a heading of the file it points to', (file) => {
    const dangling = readQuotedSections(file, read(file)).flatMap(({ line, section, holder }) =>
      readAnchors(read(holder)).has(slugOf(section))
        ? []
        : [`${file}:${line}: "${section}" is no heading of ${holder} (link to the page that has it instead)`],
    );
    expect(dangling).toEqual([]);
  });

  it('finds the links and anchors it checks (a reader that finds none would pass everything)', () => {
    const readme = read('README.md');
    expect(readLinks(readme).length).toBeGreaterThan(5);
    expect(readAnchors(read('docs/cli.md'))).toContain('exit-codes');
    expect(slugOf('`staticmcp.json`, and more')).toBe('staticmcpjson-and-more');
    expect(slugOf('A live origin: the remote URL answers everything')).toBe(
      'a-live-origin-the-remote-url-answers-everything',
    );
  });
});
