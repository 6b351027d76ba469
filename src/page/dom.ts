// DOM building for the playground: every piece of tree text goes in as a text node or an attribute
// value, never as HTML (a tree someone else built is attacker-controlled), and a link or image
// address only when safe-url says so.

export type Child = Node | string | null | undefined | false;

/** `<tag attributes…>children</tag>`; attribute values and strings are set as text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) node.setAttribute(name, value);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

let nextId = 0;

/** A page-unique id (tree names may hold any character, so ids never come from them). */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** Links from the tree: http(s) only, so `javascript:` and `data:` never become a link. */
export function safeLinkUrl(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const url = new URL(text, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif)$/;

/** An image the page may show: raster data only (inline, so no request leaves the origin). */
export function safeImageData(mimeType: unknown, base64: unknown): string | undefined {
  if (typeof mimeType !== 'string' || typeof base64 !== 'string' || !IMAGE_TYPES.test(mimeType)) return undefined;
  return /^[A-Za-z0-9+/=\s]*$/.test(base64) ? `data:${mimeType};base64,${base64.replace(/\s/g, '')}` : undefined;
}

/**
 * A tool's icon the page may show: inline raster data, or a file of this same origin (an icon on
 * another origin would be a request the page never makes); undefined for anything else.
 */
export function safeIconUrl(icon: unknown): string | undefined {
  if (typeof icon !== 'object' || icon === null) return undefined;
  const source = (icon as { src?: unknown }).src;
  if (typeof source !== 'string') return undefined;
  const inline = /^data:(image\/[a-z+.-]+);base64,(.*)$/s.exec(source);
  if (inline) return safeImageData(inline[1], inline[2]);
  try {
    const url = new URL(source, location.href);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === location.origin
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

const AUDIO_TYPES = /^audio\/(wav|x-wav|mpeg|mp3|ogg|webm|flac|aac|mp4)$/;

export function safeAudioData(mimeType: unknown, base64: unknown): string | undefined {
  if (typeof mimeType !== 'string' || typeof base64 !== 'string' || !AUDIO_TYPES.test(mimeType)) return undefined;
  return /^[A-Za-z0-9+/=\s]*$/.test(base64) ? `data:${mimeType};base64,${base64.replace(/\s/g, '')}` : undefined;
}

/** At most `limit` characters of tree text, saying how much was left out. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
