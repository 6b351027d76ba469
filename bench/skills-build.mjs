// Benchmark: what 20 skills add to a build. The same 20-argument-set project built with and
// without a skills/ folder of 20 skills (each a SKILL.md, a reference, a script and a 4 KiB PNG-like
// blob, one of them nested), and with one skill only, which tells the cost every project with skills
// pays once (loading the YAML parser) from the cost of each skill; interleaved repetitions,
// medians, ratios against the build without skills, and the files each tree holds. Run
// `npm run build` first.
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, createBenchProject, median, timeCommand } from './lib/bench-project.mjs';

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const SKILLS = 20;
const { root, project } = createBenchProject(20);
const withSkills = path.join(root, 'with-skills');
cpSync(project, withSkills, { recursive: true });
const oneSkill = path.join(root, 'one-skill');
for (let index = 0; index < SKILLS; index++) {
  const name = `skill-${String(index).padStart(2, '0')}`;
  const folder =
    index === SKILLS - 1
      ? path.join(withSkills, 'skills/skill-00/nested', name)
      : path.join(withSkills, 'skills', name);
  mkdirSync(path.join(folder, 'references'), { recursive: true });
  mkdirSync(path.join(folder, 'scripts'), { recursive: true });
  writeFileSync(
    path.join(folder, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Use echo-n for task ${index}.\nlicense: MIT\n---\n\n# ${name}\n\n${'Call echo-n with n set to the step.\n'.repeat(40)}`,
  );
  writeFileSync(
    path.join(folder, 'references/guide.md'),
    `# Guide ${index}\n\n${'A line of reference text.\n'.repeat(100)}`,
  );
  writeFileSync(path.join(folder, 'scripts/run.sh'), '#!/bin/sh\necho "$1"\n');
  writeFileSync(path.join(folder, 'logo.png'), Buffer.alloc(4096, index));
}

cpSync(project, oneSkill, { recursive: true });
cpSync(path.join(withSkills, 'skills/skill-01'), path.join(oneSkill, 'skills/skill-01'), { recursive: true });

function countFiles(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
}

const plainOut = path.join(root, 'plain-tree');
const skillsOut = path.join(root, 'skills-tree');
const oneOut = path.join(root, 'one-skill-tree');
const plainTimes = [];
const skillsTimes = [];
const oneTimes = [];
for (let round = 0; round < repetitions; round++) {
  plainTimes.push(timeCommand(process.execPath, [cliPath, 'build', project, '--force', '--out', plainOut]));
  skillsTimes.push(timeCommand(process.execPath, [cliPath, 'build', withSkills, '--force', '--out', skillsOut]));
  oneTimes.push(timeCommand(process.execPath, [cliPath, 'build', oneSkill, '--force', '--out', oneOut]));
}
const plain = median(plainTimes);
const skills = median(skillsTimes);
const one = median(oneTimes);
const plainFiles = countFiles(plainOut);
const skillsFiles = countFiles(skillsOut);
const oneFiles = countFiles(oneOut);
console.log(`repetitions: ${repetitions}; ${SKILLS} skills of 4 files each (one nested)`);
console.log(`build without skills:  median ${plain.toFixed(0)} ms, ${plainFiles} files`);
console.log(`build with one skill:  median ${one.toFixed(0)} ms, ${oneFiles} files`);
console.log(`build with ${SKILLS} skills: median ${skills.toFixed(0)} ms, ${skillsFiles} files`);
console.log(
  `one skill: +${(one - plain).toFixed(0)} ms, +${oneFiles - plainFiles} files; ratio ${(one / plain).toFixed(3)}`,
);
console.log(
  `${SKILLS} skills: +${(skills - plain).toFixed(0)} ms, +${skillsFiles - plainFiles} files; ratio with/without: ${(skills / plain).toFixed(3)}`,
);
rmSync(root, { recursive: true, force: true });
