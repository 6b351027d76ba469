// The protocol table through the core in-process (the `core` tier: nothing compiled, no process),
// over the committed golden tree of fixtures/example, which golden-trees.test.ts keeps equal to
// what the CLI builds.
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { replayProtocolTable } from './replay-table.js';

replayProtocolTable([], () => path.join(REPO_ROOT, 'test/build/__golden__/example/tree'));
