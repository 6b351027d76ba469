// Writes one bench project of issue #24 and its tree (packed-tree-projects.mjs), in a process of
// its own so its peak RSS is the writing's alone, and prints the figures as one JSON line:
//   node bench/lib/write-bench-tree.mjs <wikipedia|several-tools> <calls> <folder> [max call files]
// → <folder>/project (the project, buildable) and <folder>/tree (its tree, as the build writes it
// with that call-file budget: absent, the default 19,000; 0, never packed).
import path from 'node:path';
import { writeBenchProject, writeTreeDirectly } from './packed-tree-projects.mjs';

const [shape, callsText, folder, maxCallFilesText] = process.argv.slice(2);
if (!shape || !callsText || !folder) {
  console.error(
    'usage: node bench/lib/write-bench-tree.mjs <wikipedia|several-tools> <calls> <folder> [max call files]',
  );
  process.exit(2);
}
const calls = Number(callsText);
const project = path.join(folder, 'project');
const { calls: planned } = writeBenchProject(project, shape, calls);
const maxCallFiles = maxCallFilesText === undefined ? undefined : Number(maxCallFilesText);
const figures = await writeTreeDirectly(project, path.join(folder, 'tree'), shape, calls, { maxCallFiles });
console.log(JSON.stringify({ shape, calls: planned, ...figures, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
