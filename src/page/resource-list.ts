// The page's list of resources, read at run time (never inlined into index.html, where a content
// tree's list would weigh as much as mcp.json): `resources/list` page by page through its cursors
// where /mcp answers, else the tree's own listing. Only what is near the screen is rendered: a
// batch at a time, the next when the list's end comes into view (or its button is pressed).
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { clip, element } from './dom.js';
import type { Backend } from './page-backend.js';
import { enhanceResource } from './run-forms.js';

/** Resources rendered at a time: a screenful or two, so 10,000 resources cost what 50 do. */
const BATCH = 50;
/** `resources/list` pages read before the page stops (a cursor that never ends). */
const MAX_PAGES = 10_000;
const TEXT_LIMIT = 2000;

export interface ResourceList {
  /** Shows only the resources whose URI, name, title or description hold every word. */
  setFilter(words: readonly string[]): void;
  /** How many resources the filter lets through (all that are read so far). */
  matchCount(): number;
}

function searchTextOf(resource: JsonObject): string {
  return [resource.uri, resource.name, resource.title, resource.description]
    .filter((value) => typeof value === 'string')
    .join(' ')
    .toLowerCase();
}

function resourceArticle(resource: JsonObject, backend: Backend): HTMLElement {
  const uri = String(resource.uri);
  const title = typeof resource.title === 'string' ? resource.title : resource.name;
  const article = element(
    'article',
    { class: 'resource', 'data-uri': uri },
    element('h3', {}, element('code', {}, clip(uri, TEXT_LIMIT))),
    typeof title === 'string' && title !== '' ? element('p', {}, element('strong', {}, clip(title, TEXT_LIMIT))) : null,
    typeof resource.description === 'string' ? element('p', {}, clip(resource.description, TEXT_LIMIT)) : null,
  );
  enhanceResource(article, resource, backend, false);
  return article;
}

/** Lists the resources into `section` (the build's "Resources (N)" section); `changed` after each page read. */
export function startResourceList(section: HTMLElement, backend: Backend, changed: () => void): ResourceList {
  const list = section.querySelector<HTMLElement>('.list') ?? section;
  const note = list.querySelector('.resource-note');
  const all: { resource: JsonObject; text: string }[] = [];
  let words: readonly string[] = [];
  let matching: JsonObject[] = [];
  let shown = 0;
  const more = element('button', { type: 'button', class: 'more' });
  const items = element('div', { class: 'items' });
  list.append(items, more);
  more.hidden = true;

  function renderMore(): void {
    const next = matching.slice(shown, shown + BATCH);
    for (const resource of next) items.append(resourceArticle(resource, backend));
    shown += next.length;
    const left = matching.length - shown;
    more.hidden = left <= 0;
    more.textContent = `Show ${Math.min(BATCH, left)} more (${left} not shown)`;
  }

  function rerender(): void {
    matching = all.filter((entry) => words.every((word) => entry.text.includes(word))).map((entry) => entry.resource);
    shown = 0;
    items.replaceChildren();
    renderMore();
  }

  more.addEventListener('click', renderMore);
  // The list grows as its end nears the screen: scrolling a long list renders as it goes.
  new IntersectionObserver(
    (seen) => {
      if (seen.some((entry) => entry.isIntersecting) && !more.hidden) renderMore();
    },
    { rootMargin: '800px 0px' },
  ).observe(more);

  function add(resources: unknown[]): void {
    for (const resource of resources)
      if (isObject(resource) && typeof resource.uri === 'string') all.push({ resource, text: searchTextOf(resource) });
    const before = shown;
    matching = all.filter((entry) => words.every((word) => entry.text.includes(word))).map((entry) => entry.resource);
    // A page read while the first screen is not full yet fills it; later ones wait for the scroll.
    if (before < BATCH) {
      shown = before;
      items.querySelectorAll('article').forEach((article, index) => {
        if (index >= before) article.remove();
      });
      renderMore();
    } else {
      const left = matching.length - shown;
      more.hidden = left <= 0;
      more.textContent = `Show ${Math.min(BATCH, left)} more (${left} not shown)`;
    }
    changed();
  }

  async function readAll(): Promise<void> {
    const { mcp, files } = backend;
    if (mcp) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const reply = await mcp.request('resources/list', cursor === undefined ? {} : { cursor });
        if ('error' in reply) {
          list.append(
            element('p', { class: 'result error', role: 'alert' }, `The resources cannot be listed: ${reply.error}.`),
          );
          return;
        }
        add(Array.isArray(reply.result.resources) ? reply.result.resources : []);
        cursor = typeof reply.result.nextCursor === 'string' ? reply.result.nextCursor : undefined;
        if (cursor === undefined) break;
      }
    } else if (files) add(files.tree.resources.map((resource) => resource.definition as unknown as JsonObject));
  }

  note?.remove();
  void readAll();
  return {
    setFilter(next) {
      words = next;
      rerender();
    },
    matchCount: () => matching.length,
  };
}
