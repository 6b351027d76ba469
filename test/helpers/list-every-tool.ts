// Walking a server's tools page by page, as an MCP client does.

/** Every tool name of a server, page by page as a client walks them, and how many pages it took. */
export async function listEveryTool(client: {
  listTools(params: { cursor?: string }): Promise<{ tools: { name: string }[]; nextCursor?: string }>;
}): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages += 1;
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
  } while (cursor);
  return { names, pages };
}
