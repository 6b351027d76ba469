// Text from a tree put into the landing page's HTML (landing-page.ts, landing-skills.ts): escaped,
// and cut to a length a page view can afford.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Tree text shown on the page is cut here (a 1 MB description stays in mcp.json, not in every page view). */
const PAGE_TEXT_LIMIT = 2000;

export function clipText(text: string, whereTheRestIs = 'mcp.json'): string {
  return text.length <= PAGE_TEXT_LIMIT
    ? text
    : `${text.slice(0, PAGE_TEXT_LIMIT)}… (${text.length - PAGE_TEXT_LIMIT} more characters in ${whereTheRestIs})`;
}
