// Compiles staticmcp.schema.json ahead of time into `<outDir>/project/config-validator.js`, the
// validator src/project/config.ts uses when it is there: loading ajv and compiling the schema at
// run time costs more than Node's own start, which `serve my-server` would pay on every launch.
// Run by `npm run build` (outDir = dist) and by the test setup (a private outDir). The same ajv
// options as src/validators/ajv-validator.ts, so messages are the same either way.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Ajv } = require('ajv');
const standaloneCode = require('ajv/dist/standalone').default;

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, 'dist'));
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'staticmcp.schema.json'), 'utf8'));
// unicode: false counts UTF-16 units for minLength/maxLength (no run-time import of ajv's
// ucs2length); the schema's only bounds are "not empty" and an ASCII-only registry name.
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  validateSchema: false,
  unicode: false,
  logger: false,
  code: { source: true, esm: true },
});
const code = standaloneCode(ajv, ajv.compile(schema));
if (/\brequire\(|^import /m.test(code))
  throw new Error('the compiled config validator imports something; it must stand alone');
mkdirSync(path.join(outDir, 'project'), { recursive: true });
writeFileSync(
  path.join(outDir, 'project', 'config-validator.js'),
  `// Generated from staticmcp.schema.json by scripts/compile-config-validator.mjs; do not edit.\n${code}\n`,
);
