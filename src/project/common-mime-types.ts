// The MIME types of the few extensions most documents have, answered without loading the MIME
// database (mime-type.ts, whose `mime` package builds its tables of every type when it loads):
// a one-document edit of a content project loaded it for the one file discovery looked at. Each
// answer is the database's (test/unit/common-mime-types.test.ts compares them); any other name
// gets undefined and goes to the database.

const COMMON_TYPES = new Map<string, string>([
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['txt', 'text/plain'],
  ['html', 'text/html'],
  ['htm', 'text/html'],
  ['json', 'application/json'],
]);

/** The MIME type of a name whose extension is one of the common ones; else undefined. */
export function commonMimeTypeFor(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf('.');
  const nameStart = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1;
  // A name with no extension of its own (none, or only a leading dot) is the database's to answer.
  if (dot <= nameStart) return undefined;
  return COMMON_TYPES.get(fileName.slice(dot + 1).toLowerCase());
}
