// Setup file for every test file (vitest.config.ts): lets go of the shared host runtimes the file
// asked for (test/helpers/shared-hosts.ts), after the file's own afterAll hooks have closed its
// connections to them, so the run can pause a host no file holds.
import { afterAll } from 'vitest';
import { releaseSharedHosts } from './shared-hosts.js';

afterAll(releaseSharedHosts);
