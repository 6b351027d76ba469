// Installs tools/runtimes (the runtimes tier's dev tools: the MCP Inspector, the conformance
// prerelease and the Node 22 it runs on) with `npm ci`, unless its node_modules already holds what
// its lockfile says. Run by the runtimes tier's global setup (test/helpers/runtime-tools.ts) and by
// .ci/run, which starts it beside the root install so the tier's setup finds it done.
// Exits 1 with what went wrong on stderr.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNTIME_TOOLS = fileURLToPath(new URL('../tools/runtimes', import.meta.url));
/** Written into tools/runtimes/node_modules after an install: the hash of the lockfile it installed. */
const STAMP = path.join(RUNTIME_TOOLS, 'node_modules', '.installed-lock-sha256');
// npm ci of the Inspector and the conformance suite takes a minute on a quiet 2-core machine and
// well over ten on a saturated one; the limit is for a hung npm, not a slow one.
const INSTALL_TIMEOUT_MS = 1_800_000;

const lockHash = createHash('sha256')
  .update(readFileSync(path.join(RUNTIME_TOOLS, 'package-lock.json')))
  .digest('hex');
if (!existsSync(STAMP) || readFileSync(STAMP, 'utf8') !== lockHash) {
  process.stderr.write(
    'scripts/install-runtime-tools: installing the runtimes tier tools (npm ci --prefix tools/runtimes)\n',
  );
  try {
    // npm on PATH, as `npm test` found it; engine-strict off: these tools ask for Node 22 and run on it.
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
      cwd: RUNTIME_TOOLS,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (error) {
    const why = error.signal
      ? `npm was stopped (${error.signal}) after ${INSTALL_TIMEOUT_MS / 60_000} minutes`
      : `${error.stderr ?? error}`;
    process.stderr.write(
      `installing tools/runtimes failed (run \`npm ci --prefix tools/runtimes\` to see why; it needs the npm registry once):\n${why}\n`,
    );
    process.exit(1);
  }
  writeFileSync(STAMP, lockHash);
}
