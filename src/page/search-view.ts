// The page's search box and its list of hits (title, excerpt, link, count, an empty state), and
// the document view at `<landing page>?doc=<id>`: the document a hit names, fetched with the
// server's `fetch` tool and shown as text (Markdown rendered safely), at an address a person can
// share. Hits from older trees and from `staticmcp index` have no excerpt and an empty url.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { clip, element, safeLinkUrl, uniqueId } from './dom.js';
import { renderMarkdown } from './markdown-view.js';
import { answerOf, type Backend, errorView, showAnswer } from './page-backend.js';

/** The query string key of the document view (shared with the search index's `url`s). */
export const DOCUMENT_PARAMETER = 'doc';

const EXCERPT_LIMIT = 400;
const DOCUMENT_TEXT_LIMIT = 500_000;

interface Hit {
  id: string;
  title: string;
  url: string;
  excerpt?: string;
}

/** A search or fetch result's object: its structuredContent, else the JSON of its text. */
function structuredOf(result: JsonObject): JsonObject | undefined {
  if (isObject(result.structuredContent)) return result.structuredContent;
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  if (!isObject(first) || typeof first.text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(first.text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an error result, for the page to say. */
function errorTextOf(result: JsonObject): string {
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  return isObject(first) && typeof first.text === 'string' ? first.text : 'the server answered with an error';
}

function hitsOf(value: JsonObject | undefined): Hit[] {
  const results = value && Array.isArray(value.results) ? value.results : [];
  return results.filter(isObject).flatMap((hit) =>
    typeof hit.id === 'string'
      ? [
          {
            id: hit.id,
            title: typeof hit.title === 'string' && hit.title !== '' ? hit.title : hit.id,
            url: typeof hit.url === 'string' ? hit.url : '',
            ...(typeof hit.excerpt === 'string' && hit.excerpt !== '' ? { excerpt: hit.excerpt } : {}),
          },
        ]
      : [],
  );
}

/** The page's own view of a document: this address with `?doc=<id>` and nothing else. */
export function documentViewUrl(id: string): string {
  const url = new URL(location.href);
  url.search = '';
  url.hash = '';
  url.searchParams.set(DOCUMENT_PARAMETER, id);
  return url.href;
}

function hitList(query: string, hits: Hit[], total: number | undefined): HTMLElement {
  const box = element('div', { class: 'result' });
  if (hits.length === 0) {
    box.append(
      element('p', { class: 'empty' }, `No document matches “${clip(query, 200)}”. Try other or fewer words.`),
    );
    return box;
  }
  const count =
    total !== undefined && total > hits.length
      ? `The best ${hits.length} of ${total} documents matching “${clip(query, 200)}”.`
      : `${hits.length === 1 ? 'One document matches' : `${hits.length} documents match`} “${clip(query, 200)}”.`;
  box.append(element('p', { class: 'meta' }, count));
  const list = element('ol', { class: 'hits' });
  for (const hit of hits) {
    const page = hit.url === '' ? undefined : safeLinkUrl(hit.url);
    list.append(
      element(
        'li',
        {},
        element('a', { href: documentViewUrl(hit.id), class: 'hit-title' }, clip(hit.title, 300)),
        hit.excerpt ? element('p', { class: 'excerpt' }, clip(hit.excerpt, EXCERPT_LIMIT)) : null,
        page && page !== documentViewUrl(hit.id)
          ? element('p', { class: 'meta' }, element('a', { href: page, rel: 'noopener noreferrer' }, clip(page, 300)))
          : null,
      ),
    );
  }
  box.append(list);
  return box;
}

/** Fills the build's search section (its heading is there) with a search form and its hit list. */
export function addSearch(section: HTMLElement, backend: Backend): void {
  const id = uniqueId('search');
  const input = element('input', { id, type: 'search', spellcheck: 'false', name: 'q' });
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  const form = element(
    'form',
    { role: 'search', class: 'run-form search-form', 'aria-labelledby': 'search-title' },
    element('div', { class: 'field' }, element('label', { for: id }, 'Words to look for'), input),
    element('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = input.value.trim();
    if (query === '') {
      showAnswer(output, errorView('Type a few words to look for.'));
      input.focus();
      return;
    }
    output.setAttribute('aria-busy', 'true');
    const args = { query };
    void answerOf(backend, 'tools/call', { name: 'search', arguments: args }, (files) =>
      files.callTool('search', args),
    ).then((answer) => {
      if ('error' in answer) showAnswer(output, errorView(answer.error));
      else if ('miss' in answer) showAnswer(output, errorView(`Search is not answered here: ${answer.miss}.`));
      else if (answer.result.isError === true) showAnswer(output, errorView(errorTextOf(answer.result)));
      else {
        const value = structuredOf(answer.result);
        const total = typeof value?.total === 'number' ? value.total : undefined;
        showAnswer(output, hitList(query, hitsOf(value), total));
      }
    });
  });
  section.querySelector('p.muted')?.remove();
  section.append(form, output);
}

function isMarkdown(id: string, metadata: unknown): boolean {
  const type = isObject(metadata) ? metadata.mimeType : undefined;
  return (typeof type === 'string' && type.includes('markdown')) || /\.(md|markdown)$/i.test(id);
}

/**
 * The document view: `section` shows the document `id` (the rest of the page is hidden, with a
 * link back to it); an unknown id or a tree without search says so.
 */
export async function showDocument(section: HTMLElement, backend: Backend, id: string): Promise<void> {
  const landing = new URL(location.href);
  landing.search = '';
  landing.hash = '';
  const back = element('p', {}, element('a', { href: landing.href }, '← Everything this server offers'));
  const heading = element('h2', { id: 'document-title', tabindex: '-1' }, clip(id, 300));
  const body = element('div', { class: 'output-area', 'aria-live': 'polite', 'aria-busy': 'true' });
  section.replaceChildren(back, heading, body);
  section.hidden = false;
  for (const other of document.querySelectorAll<HTMLElement>('main > .section:not(#connect)')) other.hidden = true;
  const args = { id };
  const answer = await answerOf(backend, 'tools/call', { name: 'fetch', arguments: args }, (files) =>
    files.callTool('fetch', args),
  );
  if ('error' in answer) return showAnswer(body, errorView(answer.error));
  if ('miss' in answer)
    return showAnswer(body, errorView(`This document cannot be read here: ${answer.miss}. Search for it instead.`));
  if (answer.result.isError === true) return showAnswer(body, errorView(errorTextOf(answer.result)));
  const fetched = structuredOf(answer.result);
  const text = typeof fetched?.text === 'string' ? fetched.text : '';
  const title = typeof fetched?.title === 'string' && fetched.title !== '' ? fetched.title : id;
  heading.textContent = clip(title, 300);
  document.title = `${clip(title, 120)} — ${document.title}`;
  const page = typeof fetched?.url === 'string' && fetched.url !== '' ? safeLinkUrl(fetched.url) : undefined;
  showAnswer(
    body,
    element(
      'article',
      { class: 'document' },
      page && page !== location.href
        ? element('p', { class: 'meta' }, 'Its page: ', element('a', { href: page, rel: 'noopener noreferrer' }, page))
        : null,
      isMarkdown(id, fetched?.metadata)
        ? renderMarkdown(text)
        : element('div', { class: 'plain-text' }, clip(text, DOCUMENT_TEXT_LIMIT)),
    ),
  );
}
