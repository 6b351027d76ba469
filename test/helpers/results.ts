// Reading MCP results in tests: the text a user sees in a CallToolResult (a tools/call answer, or a
// call file of the tree), failing the test with the whole result when there is none.

/** The text of the first content block; throws when the result has no text block first. */
export function firstText(result: unknown): string {
  const content = (result as { content?: unknown } | undefined)?.content;
  const text = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined)?.text : undefined;
  if (typeof text !== 'string') throw new Error(`no text content in ${JSON.stringify(result)}`);
  return text;
}
