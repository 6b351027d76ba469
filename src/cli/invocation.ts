// How a human runs this same staticmcp again, for the commands the CLI suggests: `staticmcp` when
// it was started through its installed bin, else `node <path of main.js>` (a clone, a test build),
// so a printed hint works as written. Words are quoted for a POSIX shell when they need it.
import path from 'node:path';

/** A word safe in a POSIX shell as it is, or the word in single quotes. */
export function quoteForShell(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The launcher words: `staticmcp`, or `node /abs/…/main.js` (absolute when `absolute`, else relative to the working folder). */
export function launcherWords(options: { absolute?: boolean } = {}): string[] {
  const entry = path.resolve(process.argv[1] ?? 'staticmcp');
  // npx runs a bin from its cache, which is not on the user's PATH afterwards.
  if (path.basename(entry) === 'staticmcp' && !entry.includes(`${path.sep}_npx${path.sep}`))
    return [options.absolute ? entry : 'staticmcp'];
  return ['node', options.absolute ? entry : path.relative(process.cwd(), entry) || entry];
}

/** A suggested command line, quoted for a shell: `staticmcp build my-server`. */
export function commandLine(words: readonly string[], options: { absolute?: boolean } = {}): string {
  return [...launcherWords(options), ...words].map(quoteForShell).join(' ');
}
