// Compiles our own JSON Schemas ahead of time, so no command loads ajv or compiles them at run time
// (ajv's load and a compile cost more than Node's own start):
// - staticmcp.schema.json → `<outDir>/project/config-validator.cjs` (src/project/config.ts): every
//   command that reads a project, `serve my-server` on each launch;
// - the two `--help` documents (src/script/help-schemas.ts) → `<outDir>/script/help-validators.cjs`
//   (src/script/read-help.ts): a cold build (no cache, as in CI) paid ~130 ms for them before its
//   first script ran;
// - the schemas of a project's metadata files (src/project/sidecar-schemas.ts) →
//   `<outDir>/project/sidecar-validators.cjs` (src/project/sidecar-validators.ts).
// Run by `npm run build` (outDir = dist) and by the test setup (a private outDir), after src/ is
// compiled there. The same ajv options as src/shared/ajv-validator.ts, so messages are the same
// either way; a validator that would need ajv's runtime (an import) is refused.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { Ajv } = require('ajv');
const standaloneCode = require('ajv/dist/standalone').default;

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, 'dist'));

function write(relativePath, source, code) {
  if (/\brequire\(|^import /m.test(code))
    throw new Error(`the compiled ${relativePath} imports something; it must stand alone`);
  mkdirSync(path.dirname(path.join(outDir, relativePath)), { recursive: true });
  writeFileSync(
    path.join(outDir, relativePath),
    `// Generated from ${source} by scripts/compile-validators.mjs; do not edit.\n${code}\n`,
  );
}

// unicode: false counts UTF-16 units for minLength/maxLength (no run-time import of ajv's
// ucs2length); the schema's only bounds are "not empty" and an ASCII-only registry name.
/** Options of the validators whose code needs nothing of ajv at run time. */
const SELF_CONTAINED_OPTIONS = {
  allErrors: true,
  strict: false,
  validateSchema: false,
  unicode: false,
  logger: false,
  code: { source: true },
};
const configAjv = new Ajv(SELF_CONTAINED_OPTIONS);
const configSchema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'staticmcp.schema.json'), 'utf8'));
write(
  'project/config-validator.cjs',
  'staticmcp.schema.json',
  standaloneCode(configAjv, configAjv.compile(configSchema)),
);

// CommonJS, as every file here: read with require, which needs none of Node's ES module loader
// (parseHelpOutput is synchronous besides).
const { HELP_METADATA_SCHEMA, HELP_OPTIONS_SCHEMA } = await import(
  pathToFileURL(path.join(outDir, 'script', 'help-schemas.js')).href
);
const helpAjv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: true } });
helpAjv.addSchema(HELP_METADATA_SCHEMA, 'metadata');
helpAjv.addSchema(HELP_OPTIONS_SCHEMA, 'options');
write(
  'script/help-validators.cjs',
  'src/script/help-schemas.ts',
  standaloneCode(helpAjv, { validateMetadata: 'metadata', validateOptions: 'options' }),
);

// The project's metadata files (src/project/sidecar-schemas.ts) → `<outDir>/project/sidecar-validators.cjs`
// (src/project/sidecar-validators.ts): the first sidecar of a cold build loaded ajv otherwise.
// unicode: false as for the config; so a length bound other than "not empty" is refused here.
const { SIDECAR_SCHEMAS } = await import(pathToFileURL(path.join(outDir, 'project', 'sidecar-schemas.js')).href);
function refuseLengthBounds(node, where) {
  if (node === null || typeof node !== 'object') return;
  if ('maxLength' in node || ('minLength' in node && node.minLength !== 1))
    throw new Error(`${where}: a length bound other than minLength 1 counts differently with unicode: false`);
  for (const [key, value] of Object.entries(node)) refuseLengthBounds(value, `${where}.${key}`);
}
const sidecarAjv = new Ajv(SELF_CONTAINED_OPTIONS);
for (const [name, schema] of Object.entries(SIDECAR_SCHEMAS)) {
  refuseLengthBounds(schema, name);
  sidecarAjv.addSchema(schema, name);
}
write(
  'project/sidecar-validators.cjs',
  'src/project/sidecar-schemas.ts',
  standaloneCode(sidecarAjv, Object.fromEntries(Object.keys(SIDECAR_SCHEMAS).map((name) => [name, name]))),
);
