// The protocol table through the hosts' own runtimes: the tree's _worker.js in workerd, `wrangler
// pages dev`, `wrangler dev` and Netlify's edge function under Deno; each answer equal to the core's.
// The runtimes are the ones the tier starts once per run over the built example (test/shared-hosts.ts).
import path from 'node:path';
import { builtExample } from '../helpers/example.js';
import { replayProtocolTable } from './replay-table.js';
import { sharedExampleDriver } from './runtime-drivers.js';

replayProtocolTable(
  [
    sharedExampleDriver('workerd', 'workerd'),
    sharedExampleDriver('wrangler-pages-dev', 'pages-dev'),
    sharedExampleDriver('wrangler-dev', 'wrangler-dev'),
    sharedExampleDriver('netlify-deno', 'netlify-deno'),
  ],
  () => path.join(builtExample(), 'dist'),
);
