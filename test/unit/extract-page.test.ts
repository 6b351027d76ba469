// A built website's page as the document it becomes (src/project/extract-page.ts): the main content
// without the site's chrome, headings kept as `#` lines, its title and canonical link, and pages
// that are wrongly encoded, huge or absurdly nested read without a crash, with a warning.
import { describe, expect, it } from 'vitest';
import { checkSelector, extractPage, MAX_NESTING_DEPTH } from '../../src/project/extract-page.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

const LIMIT = { maxPageBytes: 1024 * 1024 };
const page = (html: string, options: { selector?: string; maxPageBytes?: number } = {}) =>
  extractPage(new TextEncoder().encode(html), { ...LIMIT, ...options });

const CHROME = `<header>Site header</header><nav><a href="/">Home</a> Menu</nav>`;

describe('extractPage', () => {
  it('keeps <main> with its headings, lists and code, and leaves out nav, scripts and svg', () => {
    const result = page(`<!doctype html><html><head><title> Install  guide </title>
      <script>var secret = 1</script><style>body{}</style></head><body>${CHROME}
      <main><h1>Install</h1><p>Run the <em>installer</em> first.</p><nav>On this page</nav>
      <h2>Steps</h2><ul><li>Download</li><li>Unpack</li></ul><svg><text>icon</text></svg>
      <pre><code>npm i x
npm test</code></pre><table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
      </main><footer>Copyright</footer><script>track()</script></body></html>`);
    expect(result.title).toBe('Install guide');
    expect(result.text).toBe(
      '# Install\n\nRun the installer first.\n\n## Steps\n\n- Download\n\n- Unpack\n\n```\nnpm i x\nnpm test\n```\n\nFlag | Meaning\n\n-v | verbose',
    );
    expect(result.warnings).toEqual([]);
  });

  it('prefers data-pagefind-body, then site.selector, and drops data-pagefind-ignore', () => {
    const html = `<body><main><p>Main text</p><div data-pagefind-body>Marked <span data-pagefind-ignore>not this</span>text</div>
      <div class="doc">Chosen text</div></main></body>`;
    expect(page(html).text).toBe('Marked text');
    expect(page(html, { selector: '.doc' }).text).toBe('Chosen text');
  });

  it('falls back to <article>, then to the body without header, footer, aside and nav', () => {
    expect(page(`<body>${CHROME}<article><p>The article</p></article><p>Outside</p></body>`).text).toBe('The article');
    const body = page(
      `<body>${CHROME}<aside>Related</aside><p>Body text</p><div hidden>Secret</div><footer>F</footer></body>`,
    );
    expect(body.text).toBe('Body text');
  });

  it('takes the first <h1> as the title when there is no <title>, and returns the canonical link', () => {
    const result = page(
      `<head><link rel="canonical" href=" https://docs.example.com/a/ "></head><body><h1>Heading <b>one</b></h1><h1>Two</h1></body>`,
    );
    expect(result.title).toBe('Heading one');
    expect(result.canonicalHref).toBe('https://docs.example.com/a/');
    expect(page('<body><p>No title</p></body>').title).toBeUndefined();
  });

  it('decodes by <meta charset>, and reads a page that is not UTF-8 as latin1, saying so', () => {
    const latin1 = Uint8Array.from([
      ...new TextEncoder().encode('<main>caf'),
      0xe9,
      ...new TextEncoder().encode('</main>'),
    ]);
    const declared = Uint8Array.from([
      ...new TextEncoder().encode('<meta charset="windows-1252"><main>caf'),
      0xe9,
      ...new TextEncoder().encode('</main>'),
    ]);
    expect(extractPage(declared, LIMIT)).toMatchObject({ text: 'café', warnings: [] });
    const undeclared = extractPage(latin1, LIMIT);
    expect(undeclared.text).toBe('café');
    expect(undeclared.warnings.join()).toMatch(/not valid UTF-8.*latin1/);
  });

  it('parses only the first maxPageBytes of a huge page, saying it was truncated', () => {
    const big = `<main><p>Start</p>${'<p>filler words here</p>'.repeat(40_000)}</main>`;
    const start = process.cpuUsage();
    const result = page(big, { maxPageBytes: 16 * 1024 });
    expect(cpuMsSince(start)).toBeLessThan(5_000);
    expect(result.text.startsWith('Start')).toBe(true);
    expect(result.text.length).toBeLessThan(16 * 1024);
    expect(result.warnings.join()).toMatch(/truncated.*limits\.maxPageBytes/);
  });

  it('reads 100,000 nested elements without blowing the stack, keeping their text', () => {
    const depth = 100_000;
    const result = page(`<main>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>after</p></main>`, {
      maxPageBytes: 4 * 1024 * 1024,
    });
    expect(result.text).toContain('deep text');
    expect(result.text).toContain('after');
    expect(result.warnings.join()).toContain(`deeper than ${MAX_NESTING_DEPTH} levels`);
    // Unclosed list items and paragraphs are not nesting: a long page of them keeps every tag.
    expect(page(`<main><ul>${'<li>item'.repeat(2_000)}</ul></main>`).warnings).toEqual([]);
  });

  it('refuses a selector that is not CSS', () => {
    expect(() => checkSelector('main[')).toThrow();
    expect(() => checkSelector('main .content')).not.toThrow();
  });
});
