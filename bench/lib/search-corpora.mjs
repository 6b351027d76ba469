// The corpora of the search benches (issue #25), each as one tool's precomputed calls (one
// document per call: its argument is the title, its answer the text), for a bench project
// (packed-tree-projects.mjs `writeBenchProject` / `writeTreeDirectly`) and for MiniSearch alike:
//   - debian: Debian's package descriptions (`apt-cache dumpavail`, after `apt-get update`),
//     tool `debian`, argument `package`;
//   - wiki: the generated Wikipedia-shaped corpus (wiki-corpus.mjs), tool `wiki`, argument `title`.
import { spawnSync } from 'node:child_process';
import { wikiArticle, wikiTitles } from './wiki-corpus.mjs';

/** Debian's package descriptions, the first `limit`: `{ name, text }` each, names distinct. */
export function debianPackages(limit = Number.POSITIVE_INFINITY) {
  const dump = spawnSync('apt-cache', ['dumpavail'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (dump.status !== 0) throw new Error(`apt-cache dumpavail failed (run apt-get update first): ${dump.stderr}`);
  const seen = new Set();
  const packages = [];
  for (const stanza of dump.stdout.split('\n\n')) {
    const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
    const description = /^Description: (.*(?:\n .*)*)/m.exec(stanza)?.[1];
    if (!name || !description || seen.has(name) || packages.length >= limit) continue;
    seen.add(name);
    packages.push({ name, text: description.replace(/\n \.?/g, '\n') });
  }
  return packages;
}

/**
 * Corpus `name` with at most `count` documents: its tool and argument, its titles (in call
 * order), the text of a title, and the search setting that indexes it by title.
 */
export function searchCorpus(name, count) {
  if (name === 'debian') {
    const packages = debianPackages(count);
    const textOf = new Map(packages.map((item) => [item.name, item.text]));
    return corpusOf(
      'debian',
      'package',
      'A Debian package description, by package name',
      packages.map((item) => item.name),
      (title) => textOf.get(title),
    );
  }
  if (name === 'wiki') {
    const titles = wikiTitles(count);
    const numberOf = new Map(titles.map((title, number) => [title, number]));
    return corpusOf('wiki', 'title', 'The text of an encyclopedia article, by title', titles, (title) =>
      wikiArticle(numberOf.get(title), title),
    );
  }
  throw new Error(`no corpus named ${name}: debian or wiki`);
}

function corpusOf(tool, argument, description, titles, textOf) {
  // The script answers --help only: writeTreeDirectly writes each answer without running it.
  const script = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '${JSON.stringify({ description })}'
  echo '${JSON.stringify({ [argument]: { description: 'Title', required: true, value_type: 'string' } })}' >&2
  exit 0
fi
printf 'answered by the bench\\n'
`;
  return {
    tool,
    titles,
    textOf,
    search: { resources: false, tools: { [tool]: { title: `{${argument}}` } } },
    /** A packed-tree-projects.mjs shape: one tool, one call per title. */
    shape: () => ({
      [tool]: {
        script,
        values: { [argument]: titles },
        calls: titles.length,
        argumentsAt: (index) => ({ [argument]: titles[index] }),
        answer: (args) => textOf(args[argument]),
      },
    }),
  };
}
