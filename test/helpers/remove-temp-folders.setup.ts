// Setup file for every test file (vitest.config.ts): removes the temporary folders the helpers
// made, after the file's own afterAll hooks have stopped its processes.
import { afterAll } from 'vitest';
import { removeTemporaryFolders } from './temp-folders.js';

afterAll(removeTemporaryFolders);
