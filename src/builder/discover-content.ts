// The build's content stage (build-project.ts discoverContent): resources (their parses from the
// project's document cache, document-cache.ts), a built site's pages, prompts, resource templates
// expanded through their providers, and skills.
import path from 'node:path';
import { DocumentCache } from '../project/document-cache.js';
import { discoverPrompts } from '../project/discover-prompts.js';
import { discoverResources } from '../project/discover-resources.js';
import { discoverResourceTemplates } from '../project/discover-resource-templates.js';
import { discoverSite } from '../project/discover-site.js';
import { discoverSkills } from '../project/discover-skills.js';
import { generatorName } from '../shared/version.js';
import type { OpenedProject } from './open-project.js';
import type { VolatileInput } from './value-list-command.js';

/** Resources, prompts and resource templates (the last expanded through their providers). */
export async function discoverContent(
  project: OpenedProject,
  signal: AbortSignal | undefined,
  volatileInputs: VolatileInput[],
  /** build --force: every document is parsed again. */
  force: boolean,
) {
  const { projectRoot, registration, resourcesRoot, config, cache } = project;
  const documents = await DocumentCache.open(projectRoot, generatorName(), force);
  const walked = project.walkedIdentities;
  // Held through discovery only (a few dozen bytes a project file).
  project.walkedIdentities = undefined;
  let resources: Awaited<ReturnType<typeof discoverResources>>;
  let site: Awaited<ReturnType<typeof discoverSite>>;
  try {
    resources = await discoverResources(resourcesRoot, registration.resources, projectRoot, documents, walked);
    // A built website's pages are resources like the others (discover-site.ts).
    site = await discoverSite(projectRoot, config, documents);
    // What the parses were is true whatever the rest of the build does.
    await documents.save();
  } finally {
    documents.close();
  }
  resources.documents = { parsed: documents.parsedCount, reused: documents.reusedCount };
  if (site) resources.resources.push(...site.resources);
  const prompts = await discoverPrompts(path.join(projectRoot, 'prompts'), registration.prompts, projectRoot);
  const templates =
    registration.resourceTemplates?.length === 0
      ? { templates: [], problems: [] }
      : await discoverResourceTemplates(
          resourcesRoot,
          () => new Set(resources.resources.map((resource) => resource.name)),
          registration.resourceTemplates,
          projectRoot,
        );
  const expansion =
    templates.templates.length === 0
      ? { instances: [], valuesByTemplate: {}, failures: [], warnings: [] }
      : await (await import('./expand-resource-templates.js')).expandResourceTemplates(templates.templates, {
          projectRoot,
          toolsRoot: project.toolsRoot,
          config,
          cache,
          concurrency: project.concurrency,
          displayPath: project.displayPath,
          signal,
          volatileInputs,
          maxOutputBytes: config.limits.maxOutputBytes,
        });
  const skills = await discoverSkills(projectRoot, config.limits);
  return { resources, prompts, templates, expansion, skills, site };
}
