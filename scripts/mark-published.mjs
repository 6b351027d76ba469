// Flips the PUBLISHED_ON_NPM switch to true in the file it is given: src/shared/staticmcp-command.ts
// before `npm publish` builds it (the release workflow, .github/workflows/release.yml), or the
// compiled dist/staticmcp-command.js (the tests publish a copy of a test build to a local
// registry). The switch is flipped by the release only, never by hand, so a checkout always tells
// the truth about the registry. Refuses, exit 1, when the file does not hold exactly one
// `PUBLISHED_ON_NPM = false` (already flipped, renamed, or the wrong file): a release must never
// publish a package whose deploy files still install a tarball nobody has.
//
//   node scripts/mark-published.mjs src/shared/staticmcp-command.ts
import { readFileSync, writeFileSync } from 'node:fs';

const SWITCH = /\bPUBLISHED_ON_NPM = false;/g;

const file = process.argv[2];
if (file === undefined || process.argv.length > 3) {
  process.stderr.write(
    'usage: node scripts/mark-published.mjs <src/shared/staticmcp-command.ts or its compiled .js>\n',
  );
  process.exit(2);
}
let source;
try {
  source = readFileSync(file, 'utf8');
} catch (error) {
  process.stderr.write(
    `mark-published: cannot read ${file} (${error.code}): name the file that declares PUBLISHED_ON_NPM\n`,
  );
  process.exit(1);
}
const found = source.match(SWITCH)?.length ?? 0;
if (found !== 1) {
  process.stderr.write(
    `mark-published: ${file} holds ${found} \`PUBLISHED_ON_NPM = false;\` where exactly one was expected: ` +
      'is it already flipped, or was the switch renamed? Fix the file or this script before publishing.\n',
  );
  process.exit(1);
}
writeFileSync(file, source.replace(SWITCH, 'PUBLISHED_ON_NPM = true;'));
process.stdout.write(`mark-published: ${file}: PUBLISHED_ON_NPM = true\n`);
