// `npm test`: biome's lint and format check and the type check (`npm run typecheck`) beside
// `vitest run` (every tier; arguments after `npm test --` go to vitest). Each check is one process
// and the tests keep the cores only partly busy while they wait on child processes: run one after
// the other, a core idles for the checks' length, and every test waits for them. The checks run at
// a lower CPU priority (TYPECHECK_NICENESS, or the environment's STATICMCP_TYPECHECK_NICENESS) so
// they take what the tests leave idle and never slow a test that measures time; when the tests end
// first, they get their priority back where the system allows (root, or CAP_SYS_NICE). A check's
// errors are printed as soon as it ends and again after the tests' report; the exit status is 1
// when the lint, the type check or a test failed. The cli tier's temporary folders go to a
// RAM-backed folder where there is one with room (scripts/test-temp-folder.mjs).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';
import { CLI_TIER_TMPDIR, makeTestTempFolder, removeTestTempFolder } from './test-temp-folder.mjs';

/** Unix niceness of the checks (0 = the tests' own priority, 19 = the lowest). */
const TYPECHECK_NICENESS = 10;

const require = createRequire(import.meta.url);
/** A package's bin script, by its path in the package (bins are not among what `exports` names). */
const bin = (pkg, file) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

/** Runs `node <args>`; resolves to its exit status. */
function run(args, stdio = 'inherit', env = process.env) {
  const child = spawn(process.execPath, args, { stdio, env });
  return { child, exited: new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal))) };
}

function readNiceness() {
  const raw = process.env.STATICMCP_TYPECHECK_NICENESS;
  if (raw === undefined || raw === '') return TYPECHECK_NICENESS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 19) {
    process.stderr.write(
      `STATICMCP_TYPECHECK_NICENESS is "${raw}": give a whole number from 0 to 19 (default ${TYPECHECK_NICENESS})\n`,
    );
    process.exit(2);
  }
  return value;
}

/**
 * Starts `node <args>` at `niceness`, its output kept; `failure` resolves to undefined when it
 * passed, or to what it printed, which is also written to stderr as soon as it ends.
 */
function startCheck(name, args, niceness) {
  const check = run(args, ['ignore', 'pipe', 'pipe']);
  try {
    setPriority(check.child.pid, niceness);
  } catch {
    // Lowering a child's priority is refused on some systems; the check then runs at full priority.
  }
  let output = '';
  check.child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  check.child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  let ended = false;
  const failure = check.exited.then((status) => {
    ended = true;
    if (status === 0) return undefined;
    process.stderr.write(`\nnpm test: ${name} failed:\n${output}\n`);
    return output;
  });
  const restorePriority = () => {
    if (ended) return;
    try {
      // Nothing left to yield to: the rest of the check at the tests' priority (refused without privilege).
      setPriority(check.child.pid, 0);
    } catch {}
  };
  return { name, failure, restorePriority };
}

const niceness = readNiceness();
const checks = [
  startCheck('the lint (biome ci .)', [bin('@biomejs/biome', 'bin/biome'), 'ci', '.'], niceness),
  // `npm run typecheck`'s command, run directly so its priority can be lowered.
  startCheck(
    'the type check (tsc -b)',
    [bin('typescript', 'bin/tsc'), '-b', 'tsconfig.test.json', 'tsconfig.portable.json', 'tsconfig.page.json'],
    niceness,
  ),
];
const tempFolder = makeTestTempFolder();
const tests = run(
  [bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)],
  'inherit',
  // The cli tier's temporary folder (vitest.config.ts): the runtimes tier's Deno refuses to read
  // below /dev, so that tier keeps the default.
  tempFolder === undefined ? process.env : { ...process.env, [CLI_TIER_TMPDIR]: tempFolder },
);

const testStatus = await tests.exited;
if (tempFolder !== undefined) removeTestTempFolder(tempFolder);
for (const check of checks) check.restorePriority();
let failed = testStatus !== 0;
for (const check of checks) {
  const output = await check.failure;
  if (output === undefined) continue;
  process.stderr.write(`\nnpm test: ${check.name} failed; what it printed, again:\n${output}\n`);
  failed = true;
}
process.exit(failed ? 1 : 0);
