#!/usr/bin/env node
// The `staticmcp` command as an ES module, for `node dist/cli/main.js …`. The installed bin is
// dist/cli/staticmcp.cjs, the same start (start-cli.ts) bundled as CommonJS, which starts sooner
// on Node 20 (scripts/bundle-cli.mjs).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli } from './start-cli.js';

await startCli(
  path.dirname(fileURLToPath(import.meta.url)),
  (specifier) => import(specifier),
  createRequire(import.meta.url),
);
