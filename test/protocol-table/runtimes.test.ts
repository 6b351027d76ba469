// The protocol table through the hosts' own runtimes: the tree's _worker.js in workerd, `wrangler
// pages dev`, `wrangler dev` and Netlify's edge function under Deno; each answer equal to the core's
// over the same tree. The runtimes are the ones the tier starts once per run (test/shared-hosts.ts):
// workerd over the built example, the other three over the packed example with skills, where the
// table's calls answer from packs (greet, math_multiply) and from call files (the all-defaults greet).
import path from 'node:path';
import { describe } from 'vitest';
import { builtExample } from '../helpers/example.js';
import { sharedHostOfProject } from '../helpers/shared-hosts.js';
import { replayProtocolTable } from './replay-table.js';
import { sharedExampleDriver } from './runtime-drivers.js';

describe('over the example', () => {
  replayProtocolTable([sharedExampleDriver('workerd', 'workerd')], () => path.join(builtExample(), 'dist'));
});

describe('over the packed example with skills', () => {
  replayProtocolTable(
    [
      sharedExampleDriver('wrangler-pages-dev', 'pages-dev'),
      sharedExampleDriver('wrangler-dev', 'wrangler-dev'),
      sharedExampleDriver('netlify-deno', 'netlify-deno'),
    ],
    // The three hosts start side by side here, in a hook with room for it, not in their first tests.
    async () => {
      const [pagesDev] = await Promise.all(
        (['pages-dev', 'wrangler-dev', 'netlify-deno'] as const).map((host) => sharedHostOfProject(host)),
      );
      return path.join(pagesDev!.project, 'dist');
    },
    { skills: true },
  );
});
