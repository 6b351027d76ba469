// Writes one bench project of issue #24 and its tree (packed-tree-projects.mjs), in a process of
// its own so its peak RSS is the writing's alone, and prints the figures as one JSON line:
//   node bench/lib/write-bench-tree.mjs <wikipedia|several-tools> <calls> <folder>
// → <folder>/project (the project, buildable) and <folder>/tree (its tree, as the build writes it).
import path from 'node:path';
import { writeBenchProject, writeTreeDirectly } from './packed-tree-projects.mjs';

const [shape, callsText, folder] = process.argv.slice(2);
if (!shape || !callsText || !folder) {
  console.error('usage: node bench/lib/write-bench-tree.mjs <wikipedia|several-tools> <calls> <folder>');
  process.exit(2);
}
const calls = Number(callsText);
const project = path.join(folder, 'project');
const { calls: planned } = writeBenchProject(project, shape, calls);
const figures = await writeTreeDirectly(project, path.join(folder, 'tree'), shape, calls);
console.log(JSON.stringify({ shape, calls: planned, ...figures, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
