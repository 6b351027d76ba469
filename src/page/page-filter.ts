// A filter over what the page lists (tools, resources, templates, prompts): the words a person
// types keep only the entries that hold them all, each section's heading says how many match,
// and a section with none left is hidden.
import { element, uniqueId } from './dom.js';
import type { ResourceList } from './resource-list.js';

/** A tree with fewer entries than this shows them all without a filter. */
const FILTER_FROM_ENTRIES = 6;

interface Counted {
  section: HTMLElement;
  heading: HTMLElement | null;
  /** The heading's own text before the count ("Tools"). */
  name: string;
  total: number;
}

function countedOf(section: HTMLElement, total: number): Counted {
  const heading = section.querySelector<HTMLElement>('summary h2');
  return { section, heading, name: (heading?.textContent ?? '').replace(/\s*\(\d+\)$/, ''), total };
}

function sayCount(counted: Counted, matching: number, filtering: boolean): void {
  if (counted.heading)
    counted.heading.textContent = filtering
      ? `${counted.name} (${matching} of ${counted.total})`
      : `${counted.name} (${counted.total})`;
  counted.section.hidden = filtering && matching === 0;
}

/**
 * Puts the filter before the page's first section when the tree lists enough to need one;
 * returns what to call when more resources were read (their count under the filter changed).
 */
export function addFilter(resources: ResourceList | undefined, resourceTotal: number): () => void {
  const sections = ['tools', 'templates', 'prompts'].flatMap((id) => {
    const section = document.getElementById(id);
    return section ? [section] : [];
  });
  const entries = sections.map((section) => ({
    counted: countedOf(section, section.querySelectorAll('article').length),
    articles: [...section.querySelectorAll<HTMLElement>('article')].map((article) => ({
      article,
      text: [...article.querySelectorAll('h3, h3 ~ p')]
        .map((node) => node.textContent ?? '')
        .join(' ')
        .toLowerCase(),
    })),
  }));
  const resourceSection = document.getElementById('resources');
  const total = entries.reduce((sum, entry) => sum + entry.articles.length, 0) + resourceTotal;
  const first = document.querySelector('main > .section:not(#connect)');
  if (total < FILTER_FROM_ENTRIES || !first) return () => {};
  const id = uniqueId('filter');
  const input = element('input', { id, type: 'search', spellcheck: 'false', autocomplete: 'off' });
  const box = element(
    'div',
    { class: 'filter field', role: 'search', 'aria-label': 'Filter what this server offers' },
    element('label', { for: id }, 'Filter tools and resources'),
    input,
  );
  first.before(box);
  const resourceCount = resourceSection ? countedOf(resourceSection, resourceTotal) : undefined;
  const wordsOf = (): string[] => input.value.toLowerCase().split(/\s+/).filter(Boolean);
  input.addEventListener('input', () => {
    const words = wordsOf();
    const filtering = words.length > 0;
    for (const { counted, articles } of entries) {
      let matching = 0;
      for (const { article, text } of articles) {
        const match = words.every((word) => text.includes(word));
        article.hidden = !match;
        if (match) matching += 1;
      }
      sayCount(counted, matching, filtering);
    }
    if (resources && resourceCount) {
      resources.setFilter(words);
      sayCount(resourceCount, resources.matchCount(), filtering);
    }
  });
  return () => {
    if (resources && resourceCount) sayCount(resourceCount, resources.matchCount(), wordsOf().length > 0);
  };
}
