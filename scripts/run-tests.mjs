// `npm test`: biome's lint and format check, then the type check (`npm run typecheck`) beside
// `vitest run` (every tier; arguments after `npm test --` go to vitest). The type check is one
// process, tsc single-threaded, and the tests keep the cores only partly busy while they wait on
// child processes: run one after the other, a core idles for the type check's length. tsc runs at
// a lower CPU priority (TYPECHECK_NICENESS, or the environment's STATICMCP_TYPECHECK_NICENESS) so
// it takes what the tests leave idle and never slows a test that measures time; when the tests end
// first, it gets its priority back where the system allows (root, or CAP_SYS_NICE). Its errors are
// printed as soon as it ends and again after the tests' report; the exit status is 1 when the
// lint, the type check or a test failed.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';

/** Unix niceness of the type check (0 = the tests' own priority, 19 = the lowest). */
const TYPECHECK_NICENESS = 10;

const require = createRequire(import.meta.url);
/** A package's bin script, by its path in the package (bins are not among what `exports` names). */
const bin = (pkg, file) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

/** Runs `node <args>` with the terminal; resolves to its exit status. */
function run(args, stdio = 'inherit') {
  const child = spawn(process.execPath, args, { stdio });
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

const niceness = readNiceness();
const lint = spawnSync(process.execPath, [bin('@biomejs/biome', 'bin/biome'), 'ci', '.'], { stdio: 'inherit' });
if (lint.status !== 0) process.exit(1);

// `npm run typecheck`'s command, run directly so its priority can be lowered.
const typecheck = run(
  [bin('typescript', 'bin/tsc'), '-b', 'tsconfig.test.json', 'tsconfig.portable.json', 'tsconfig.page.json'],
  ['ignore', 'pipe', 'pipe'],
);
try {
  setPriority(typecheck.child.pid, niceness);
} catch {
  // Lowering a child's priority is refused on some systems; the check then runs at full priority.
}
let typeErrors = '';
typecheck.child.stdout.on('data', (chunk) => {
  typeErrors += chunk;
});
typecheck.child.stderr.on('data', (chunk) => {
  typeErrors += chunk;
});
const tests = run([bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)]);

let typeStatus;
const typeEnded = typecheck.exited.then((status) => {
  typeStatus = status;
  if (status !== 0) process.stderr.write(`\nnpm test: the type check failed (tsc -b):\n${typeErrors}\n`);
});
const testStatus = await tests.exited;
if (typeStatus === undefined) {
  try {
    // Nothing left to yield to: the rest of the check at the tests' priority (refused without privilege).
    setPriority(typecheck.child.pid, 0);
  } catch {}
}
await typeEnded;
if (typeStatus !== 0) {
  process.stderr.write(`\nnpm test: the type check failed; its errors, again:\n${typeErrors}\n`);
  process.exit(1);
}
process.exit(testStatus === 0 ? 0 : 1);
