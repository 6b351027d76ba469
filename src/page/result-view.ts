// How the playground shows an answer: text as text (pretty-printed when it is JSON), images and
// audio from their inline data, resource links as links (http(s) only), embedded resources,
// structured content, and `isError` said in words, not only in colour.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { clip, element, safeAudioData, safeImageData, safeLinkUrl } from './dom.js';

/** Text longer than this is cut in the page (the whole answer is in the tree file). */
const TEXT_LIMIT = 200_000;

function prettyText(text: string): string {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      return JSON.stringify(JSON.parse(trimmed), null, 2);
    } catch {
      // Not JSON after all.
    }
  }
  return text;
}

function textBlock(text: string): HTMLElement {
  return element('pre', { class: 'output', tabindex: '0' }, clip(prettyText(text), TEXT_LIMIT));
}

/** One content block (CallToolResult content, a prompt message's content). */
export function renderContent(block: unknown): HTMLElement {
  if (!isObject(block)) return textBlock(JSON.stringify(block, null, 2));
  switch (block.type) {
    case 'text':
      return textBlock(typeof block.text === 'string' ? block.text : '');
    case 'image': {
      const source = safeImageData(block.mimeType, block.data);
      return source
        ? element('img', { src: source, alt: 'Image from the answer', class: 'output-image' })
        : element('p', {}, `An image of type ${String(block.mimeType)} the page does not show.`);
    }
    case 'audio': {
      const source = safeAudioData(block.mimeType, block.data);
      return source
        ? element('audio', { controls: '', src: source, 'aria-label': 'Audio from the answer' })
        : element('p', {}, `Audio of type ${String(block.mimeType)} the page does not play.`);
    }
    case 'resource_link': {
      const href = safeLinkUrl(block.uri);
      const name = typeof block.name === 'string' ? block.name : String(block.uri);
      return element(
        'p',
        {},
        'Resource link: ',
        href ? element('a', { href, rel: 'noopener noreferrer' }, name) : element('code', {}, String(block.uri)),
      );
    }
    case 'resource':
      return renderResourceContents(isObject(block.resource) ? [block.resource] : []);
    default:
      return textBlock(JSON.stringify(block, null, 2));
  }
}

/** resources/read contents: text shown, binary described (or shown when it is an image). */
export function renderResourceContents(contents: unknown[]): HTMLElement {
  const list = element('div', { class: 'result' });
  for (const item of contents) {
    if (!isObject(item)) continue;
    const heading = element(
      'p',
      { class: 'meta' },
      element('code', {}, String(item.uri ?? '')),
      ` ${String(item.mimeType ?? '')}`,
    );
    list.append(heading);
    if (typeof item.text === 'string') list.append(textBlock(item.text));
    else if (typeof item.blob === 'string') {
      const image = safeImageData(item.mimeType, item.blob);
      list.append(
        image
          ? element('img', { src: image, alt: `Image ${String(item.uri ?? '')}`, class: 'output-image' })
          : element('p', {}, `${Math.floor((item.blob.length * 3) / 4)} bytes of binary data.`),
      );
    }
  }
  return list;
}

/** A CallToolResult. */
export function renderToolResult(result: JsonObject): HTMLElement {
  const box = element('div', { class: result.isError === true ? 'result error' : 'result' });
  if (result.isError === true) box.append(element('p', { class: 'badge-error' }, 'The tool answered with an error:'));
  for (const block of Array.isArray(result.content) ? result.content : []) box.append(renderContent(block));
  if (isObject(result.structuredContent)) {
    box.append(
      element('p', { class: 'meta' }, 'Structured content:'),
      textBlock(JSON.stringify(result.structuredContent)),
    );
  }
  return box;
}

/** A GetPromptResult's messages, each under its role. */
export function renderPromptMessages(result: JsonObject): HTMLElement {
  const box = element('div', { class: 'result' });
  for (const message of Array.isArray(result.messages) ? result.messages : []) {
    if (!isObject(message)) continue;
    box.append(
      element('p', { class: 'meta' }, message.role === 'assistant' ? 'assistant' : 'user'),
      renderContent(message.content),
    );
  }
  return box;
}
