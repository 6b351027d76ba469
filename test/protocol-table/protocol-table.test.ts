// The protocol table through the CLI as a real process: `serve` over stdio, over Streamable HTTP,
// and `serve <URL>` reading the tree from a plain static host; each answer equal to the core's.
import path from 'node:path';
import { builtExample } from '../helpers/example.js';
import { nodeHttpDriver, serveUrlDriver, stdioDriver } from './drivers.js';
import { replayProtocolTable } from './replay-table.js';

replayProtocolTable([stdioDriver, nodeHttpDriver, serveUrlDriver], () => path.join(builtExample(), 'dist'));
