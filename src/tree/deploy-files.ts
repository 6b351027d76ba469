// Files that make a tree pleasant on static hosts: `.nojekyll` (GitHub Pages must not hide
// anything), `_headers` (Netlify/Cloudflare Pages: JSON content type, cache rules) and an
// `index.html` telling a human what this server offers and how to connect.
import { readFileSync } from 'node:fs';
import type { Manifest } from './manifest.js';

const HEADERS = `/*
  Access-Control-Allow-Origin: *
  X-Content-Type-Options: nosniff

/*.json
  Content-Type: application/json; charset=utf-8
  Cache-Control: public, max-age=300, must-revalidate

/mcp.json
  Content-Type: application/json; charset=utf-8
  Cache-Control: public, max-age=60, must-revalidate
`;

let template: string | undefined;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function definitionList(items: { term: string; text?: string }[]): string {
  if (items.length === 0) return '<dt>none</dt>';
  return items.map((item) => `<dt><code>${escapeHtml(item.term)}</code></dt><dd>${escapeHtml(item.text ?? '')}</dd>`).join('\n');
}

export function renderIndexHtml(manifest: Manifest): string {
  template ??= readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');
  const { serverInfo, capabilities } = manifest;
  const values: Record<string, string> = {
    title: escapeHtml(serverInfo.title ?? serverInfo.name),
    name: escapeHtml(serverInfo.name),
    description: escapeHtml(serverInfo.description ?? manifest.instructions ?? ''),
    treeUrl: 'https://&lt;where-you-deployed-this-folder&gt;/',
    toolCount: String(capabilities.tools.length),
    resourceCount: String(capabilities.resources.length),
    tools: definitionList(capabilities.tools.map((tool) => ({ term: tool.name, text: tool.title ? `${tool.title}: ${tool.description ?? ''}` : tool.description }))),
    resources: definitionList(capabilities.resources.map((resource) => ({ term: resource.uri, text: resource.description }))),
    templateCount: String(capabilities.resourceTemplates?.length ?? 0),
    templates: definitionList((capabilities.resourceTemplates ?? []).map((template) => ({ term: template.uriTemplate, text: template.description ?? template.title }))),
    promptCount: String(capabilities.prompts?.length ?? 0),
    prompts: definitionList((capabilities.prompts ?? []).map((prompt) => ({
      term: prompt.name,
      text: `${prompt.description ?? ''}${prompt.arguments?.length ? ` (arguments: ${prompt.arguments.map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(', ')})` : ''}`,
    }))),
  };
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

export function deployFiles(manifest: Manifest): Map<string, string> {
  return new Map([
    ['.nojekyll', ''],
    ['_headers', HEADERS],
    ['index.html', renderIndexHtml(manifest)],
  ]);
}
