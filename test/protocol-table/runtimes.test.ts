// The protocol table through the hosts' own runtimes: the tree's _worker.js in workerd, `wrangler
// pages dev`, `wrangler dev` and Netlify's edge function under Deno; each answer equal to the core's.
import path from 'node:path';
import { copyBuiltExample } from '../helpers/example.js';
import { replayProtocolTable } from './replay-table.js';
import { netlifyDenoDriver, pagesDevDriver, wranglerDevDriver, workerdDriver } from './runtime-drivers.js';

// A copy: the wrangler dev and Netlify drivers add init's deploy files beside the tree.
replayProtocolTable([workerdDriver, pagesDevDriver, wranglerDevDriver, netlifyDenoDriver], () =>
  path.join(copyBuiltExample(), 'dist'),
);
