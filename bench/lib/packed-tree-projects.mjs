// The bench projects of issue #24 (packed trees), and their trees written directly: building
// 650,000 calls through scripts takes far too long for a bench, so `writeTreeDirectly` runs the
// build's own stages (openProject, planTools with each script's real --help, CallFileSink,
// collectCompletions, planPacking, assembleTree, the search, pack and manifest stages, TreeWriter) and hands the sink
// the answer each script would print instead of running it. The tree is the one `staticmcp build`
// writes for the same project and call-file budget, packed or not, byte for byte
// (`verifyAgainstBuild` compares the two on a project small enough to build).
//   - wikipedia: one tool, one string argument, ~2 KB answers (the shape of the largest public
//     StaticMCP tree, ~650,000 files);
//   - several-tools: four tools, one to two arguments each (string lists, an enum, an integer
//     range, an optional enum with a default, whose left-out-default copies are call files too).
// Needs the compiled package (npm run build): it imports the build's stages from dist/.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot } from './common.mjs';

const dist = (module) => import(path.join(repoRoot, 'dist', module));

// ~1,950 bytes, so an article's call file is ~2 KB. No single quotes: it sits in a shell script.
const ARTICLE_BODY = Array.from(
  { length: 13 },
  (_, index) =>
    `Paragraph ${index + 1} of a generated article: plain prose of the length an encyclopedia summary has, so that every answer weighs what a real one does.`,
).join(' ');

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const UNITS = ['mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'mi', 'nmi', 'au'];
const LANGUAGES = ['en', 'fr', 'de', 'es'];

/** A shell tool script: its --help (description, parameters) and the printf that answers. */
function toolScript(description, parameters, printf) {
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '${JSON.stringify({ description })}'
  echo '${JSON.stringify(parameters)}' >&2
  exit 0
fi
${printf}
`;
}

/** Names that never collide once encoded as key segments (the number keeps them apart). */
function names(prefix, count) {
  return Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`);
}

/**
 * The projects: per tool its script, its staticmcp.json value lists, how many calls it has, the
 * arguments of its call number `index` (0 ≤ index < calls), and the text its script prints for
 * some arguments (what writeTreeDirectly puts in the call file, and what a bench expects back).
 */
export const PROJECT_SHAPES = {
  wikipedia: (calls) => ({
    'get-article': {
      script: toolScript(
        'The text of an encyclopedia article, by title',
        { title: { description: 'Article title', required: true, value_type: 'string' } },
        `printf '# %s\\n\\n%s\\n' "$title" '${ARTICLE_BODY}'`,
      ),
      values: { title: names('Article', calls) },
      calls,
      argumentsAt: (index) => ({ title: `Article ${index + 1}` }),
      answer: (args) => `# ${args.title}\n\n${ARTICLE_BODY}\n`,
    },
  }),
  'several-tools': (calls) => {
    // Shares of the calls: 20% capital, 28% forecast, 20% convert, 32% define (+ its copies).
    const countries = Math.max(1, Math.round(calls * 0.2));
    const cities = Math.max(1, Math.round((calls * 0.28) / DAYS.length));
    const amounts = Math.max(1, Math.round((calls * 0.2) / UNITS.length));
    const words = Math.max(1, calls - countries - cities * DAYS.length - amounts * UNITS.length) / LANGUAGES.length;
    const wordCount = Math.max(1, Math.round(words));
    return {
      capital: {
        script: toolScript(
          'The capital of a country',
          { country: { description: 'Country name', required: true, value_type: 'string' } },
          `printf 'The capital of %s is %s City.\\n' "$country" "$country"`,
        ),
        values: { country: names('Country', countries) },
        calls: countries,
        argumentsAt: (index) => ({ country: `Country ${index + 1}` }),
        answer: (args) => `The capital of ${args.country} is ${args.country} City.\n`,
      },
      forecast: {
        script: toolScript(
          'The weather forecast for a city on a day of the week',
          {
            city: { description: 'City name', required: true, value_type: 'string' },
            day: { description: 'Day of the week', required: true, value_type: { enum: DAYS } },
          },
          `printf 'Forecast for %s on %s: sunny spells, 21 C, a light wind from the west, no rain expected before the evening.\\n' "$city" "$day"`,
        ),
        values: { city: names('City', cities) },
        calls: cities * DAYS.length,
        argumentsAt: (index) => ({
          city: `City ${Math.floor(index / DAYS.length) + 1}`,
          day: DAYS[index % DAYS.length],
        }),
        answer: (args) =>
          `Forecast for ${args.city} on ${args.day}: sunny spells, 21 C, a light wind from the west, no rain expected before the evening.\n`,
      },
      convert: {
        script: toolScript(
          'A length in metres',
          {
            amount: {
              description: 'How many',
              required: true,
              value_type: 'integer',
              size: { min: 1, max: amounts },
            },
            unit: { description: 'Unit of the amount', required: true, value_type: { enum: UNITS } },
          },
          `printf '%s %s is %s in the unit table of the bench.\\n' "$amount" "$unit" "$((amount * 3))"`,
        ),
        values: {},
        calls: amounts * UNITS.length,
        argumentsAt: (index) => ({ amount: Math.floor(index / UNITS.length) + 1, unit: UNITS[index % UNITS.length] }),
        answer: (args) => `${args.amount} ${args.unit} is ${args.amount * 3} in the unit table of the bench.\n`,
      },
      define: {
        script: toolScript(
          'The definition of a word',
          {
            word: { description: 'The word', required: true, value_type: 'string' },
            lang: {
              description: 'Language of the definition',
              required: false,
              value_type: { enum: LANGUAGES },
              default_value: 'en',
            },
          },
          `printf '%s (%s): a word of the bench dictionary, defined at the length a short dictionary entry has, with an example of its use in a sentence and a note on where it comes from.\\n' "$word" "$lang"`,
        ),
        values: { word: names('Word', wordCount) },
        calls: wordCount * LANGUAGES.length,
        argumentsAt: (index) => ({
          word: `Word ${Math.floor(index / LANGUAGES.length) + 1}`,
          lang: LANGUAGES[index % LANGUAGES.length],
        }),
        answer: (args) =>
          `${args.word} (${args.lang}): a word of the bench dictionary, defined at the length a short dictionary entry has, with an example of its use in a sentence and a note on where it comes from.\n`,
      },
    };
  },
};

/**
 * `count` precomputed calls of the project, drawn at random over all its calls (every call as
 * likely as any other), each `{ tool, args, text }` with the text the tree must answer.
 */
export function sampleCalls(shape, calls, count, random = seededRandom(24)) {
  const tools = Object.entries(PROJECT_SHAPES[shape](calls));
  const total = tools.reduce((sum, [, tool]) => sum + tool.calls, 0);
  return Array.from({ length: count }, () => {
    let index = Math.floor(random() * total);
    for (const [name, tool] of tools) {
      if (index >= tool.calls) {
        index -= tool.calls;
        continue;
      }
      const args = tool.argumentsAt(index);
      return { tool: name, args, text: tool.answer(args) };
    }
    throw new Error('unreachable: the index is below the total');
  });
}

/** A small deterministic generator (mulberry32), so every run samples the same calls. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The tools of `shape`: a PROJECT_SHAPES name, or a function of `calls` returning tools of that form. */
function toolsOfShape(shape, calls) {
  return typeof shape === 'function' ? shape(calls) : PROJECT_SHAPES[shape](calls);
}

/**
 * Writes the project of `shape` with about `calls` calls into `projectRoot` (tools/ and
 * staticmcp.json, with `extraConfig`'s settings added).
 */
export function writeBenchProject(projectRoot, shape, calls, extraConfig = {}) {
  const tools = toolsOfShape(shape, calls);
  mkdirSync(path.join(projectRoot, 'tools'), { recursive: true });
  for (const [name, tool] of Object.entries(tools)) {
    const file = path.join(projectRoot, 'tools', name);
    writeFileSync(file, tool.script);
    chmodSync(file, 0o755);
  }
  const largest = Math.max(...Object.values(tools).map((tool) => tool.calls));
  const config = {
    // Every tool precomputed whatever its size; no budget warning either way (the bench decides).
    limits: { maxCallsPerTool: largest, maxIntegerRange: largest },
    tools: Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, { values: tool.values }])),
    ...extraConfig,
  };
  writeFileSync(path.join(projectRoot, 'staticmcp.json'), `${JSON.stringify(config)}\n`);
  return { tools, calls: Object.values(tools).reduce((sum, tool) => sum + tool.calls, 0) };
}

/**
 * Writes the tree of the project at `projectRoot` (made by writeBenchProject with `shape` and
 * `calls`) into `outDir` as `staticmcp build --max-call-files <maxCallFiles>` would (absent: the
 * project's limits.maxCallFiles, 19,000 by default; 0: never packed), without running a script per
 * call. Returns the figures: ms, files, call files (before packing), pack files, the pack target,
 * bytes, largest file, and the build's warnings.
 */
export async function writeTreeDirectly(projectRoot, outDir, shape, calls, { maxCallFiles } = {}) {
  const startedAt = performance.now();
  const tools = toolsOfShape(shape, calls);
  const [
    { openProject },
    { planTools },
    { CallFileSink },
    { TreeOutput },
    { TreeWriter },
    { collectCompletions },
    { assembleTree },
    { streamToolCalls },
    { generatorName },
    { BUILD_OWNED_NESTED_PATHS, BUILD_OWNED_TOP_LEVEL },
    { checkCallFileBudget, checkHostLimits },
    { planPacking, writePacks },
    { writeSearchIndexStep },
    { writeManifest },
  ] = await Promise.all([
    dist('builder/open-project.js'),
    dist('builder/plan-tools.js'),
    dist('builder/call-file-sink.js'),
    dist('builder/tree-output.js'),
    dist('tree-writer/tree-writer.js'),
    dist('builder/collect-completions.js'),
    dist('builder/assemble-tree.js'),
    dist('builder/call-stream.js'),
    dist('shared/version.js'),
    dist('tree-writer/tree-ownership.js'),
    dist('builder/host-limits.js'),
    dist('builder/pack-call-files.js'),
    dist('builder/search-index-step.js'),
    dist('builder/write-manifest.js'),
  ]);
  const project = await openProject({ projectRoot, outDir });
  const { config, cache, concurrency, displayPath, toolsRoot, toolsFolder } = project;
  const planned = await planTools(project.discovery.scripts, {
    projectRoot,
    toolsRoot,
    config,
    cache,
    concurrency,
    displayPath,
  });
  if (planned.failures.length > 0) throw new Error(`planning failed: ${JSON.stringify(planned.failures)}`);
  const writer = await TreeWriter.open(project.outDir);
  const output = new TreeOutput(writer);
  const budget = maxCallFiles ?? config.limits.maxCallFiles;
  output.spoolCallFilesPast(budget);
  const sink = new CallFileSink(output, planned.plans);
  for (const plan of planned.plans) {
    const { answer } = tools[plan.name];
    for (const args of streamToolCalls(plan)) {
      const result = { content: [{ type: 'text', text: answer(args) }] };
      await sink.add({ plan, arguments: args, result, fromCache: false, logLines: [], warnings: [] });
    }
  }
  const copies = await sink.writeCopies();
  const callFilesBeforePacking = output.tally.callFiles;
  const packingPlan = await planPacking(
    output,
    planned.plans.map((plan) => plan.name),
    copies,
    budget,
  );
  const completions = collectCompletions(planned.plans, [], [], {}, project.registration.completions);
  // The stages as build-project.ts calls them (a fresh folder: no previous packs or index to reuse).
  const assembled = await assembleTree({
    serverName: path.basename(path.resolve(projectRoot)),
    config,
    toolsFolder,
    plans: planned.plans,
    output,
    toolReports: sink.toolReports(),
    resources: [],
    prompts: [],
    templates: [],
    templateInstances: [],
    completions,
    packsCalls: packingPlan !== undefined,
    shardPart: false,
  });
  const contentHash = await output.writer.hashWritten();
  const search = await writeSearchIndexStep(
    {
      config,
      manifest: assembled.documentsManifest,
      toolNames: assembled.toolNames,
      publicUrl: assembled.publicUrl,
      output,
      shardPart: false,
      generator: generatorName(),
    },
    assembled.hasTextResources,
  );
  const packing = packingPlan ? await writePacks(output, packingPlan, { generator: generatorName() }) : undefined;
  const tree = await writeManifest(
    assembled,
    {
      config,
      generator: generatorName(),
      toolsFolder,
      templates: [],
      completionProviders: {},
      contentHash,
      search,
      ...(packing ? { packs: packing.table } : {}),
    },
    output,
  );
  if (tree.failures.length > 0) throw new Error(`assembly failed: ${JSON.stringify(tree.failures)}`);
  await writer.commit({ keep: (name) => !BUILD_OWNED_TOP_LEVEL.has(name), dropInsideKept: BUILD_OWNED_NESTED_PATHS });
  const { tally } = output;
  return {
    ms: performance.now() - startedAt,
    files: tally.files,
    callFiles: callFilesBeforePacking,
    callFilesLeft: tally.callFiles,
    packFiles: packing?.packFiles ?? 0,
    targetPackBytes: packing?.targetPackBytes,
    bytes: tally.bytes,
    ...largestFile(project.outDir),
    warnings: [...checkCallFileBudget(callFilesBeforePacking, budget, packing), ...checkHostLimits(tally)].map(
      (warning) => warning.message,
    ),
  };
}

/**
 * The largest file under `folder` (a walk: the tally keeps no maximum) and the largest of
 * `completions/` and `mcp.json`, the files that may grow with the calls: bytes and tree path.
 */
function largestFile(folder) {
  let largest = { bytes: 0, path: '' };
  let manifestBytes = 0;
  let completionsBytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = statSync(file).size;
    const treePath = path.relative(folder, file).split(path.sep).join('/');
    if (bytes > largest.bytes) largest = { bytes, path: treePath };
    if (treePath === 'mcp.json') manifestBytes = bytes;
    if (treePath.startsWith('completions')) completionsBytes = Math.max(completionsBytes, bytes);
  }
  return { largestFileBytes: largest.bytes, largestFile: largest.path, manifestBytes, completionsBytes };
}

/** Every file under `folder` by tree-relative path → its bytes. */
function readTree(folder) {
  const files = new Map();
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(folder, file).split(path.sep).join('/'), readFileSync(file));
  }
  return files;
}

/**
 * Builds the project with the real CLI into `builtDir` (with `--max-call-files maxCallFiles` when
 * given) and compares it with the tree written directly into `writtenDir` with the same budget:
 * returns the paths that differ (missing on one side or other bytes).
 */
export function verifyAgainstBuild(projectRoot, writtenDir, builtDir, { maxCallFiles } = {}) {
  const budget = maxCallFiles === undefined ? [] : ['--max-call-files', String(maxCallFiles)];
  const build = spawnSync(process.execPath, [cliPath, 'build', projectRoot, '--out', builtDir, ...budget], {
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`staticmcp build failed: ${build.stderr}`);
  const written = readTree(writtenDir);
  const built = readTree(builtDir);
  const differing = [];
  for (const [file, bytes] of built) if (!written.get(file)?.equals(bytes)) differing.push(file);
  for (const file of written.keys()) if (!built.has(file)) differing.push(file);
  return differing.sort();
}
