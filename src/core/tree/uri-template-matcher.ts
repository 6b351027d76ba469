// Matching a concrete URI against a resource template in time linear in the URI's length (issue
// 21: the backtracking RegExp this replaces took 8 s of event loop for `file://{name}.{ext}` and
// 40 KB of dots, quadratic in the length). The template becomes a tiny automaton, run as a Pike VM
// (Thompson simulation keeping threads in priority order, as RE2 does): every URI character is
// looked at once per automaton state, never re-scanned, and the variables it returns are exactly
// the ones the RegExp found, because threads keep the RegExp's backtracking priorities (a `{var}`
// takes as much as it can, a `{+var}` as little, a `{#var}` is tried with its `#` first) and the
// first thread to reach the end in that order wins. Portable: no node:, Buffer or process.

/** One piece of a parsed template (uri-template.ts parses): declared beside the automaton that consumes it. */
export interface TemplatePart {
  literal?: string;
  variable?: string;
  /** '' (simple: reserved characters percent-encoded), '+' (reserved kept) or '#' (fragment). */
  operator?: '' | '+' | '#';
}

/** One automaton instruction; `char`, `any` and `segment` consume one UTF-16 code unit. */
type Instruction =
  | { op: 'char'; code: number }
  | { op: 'any' }
  /** Any code unit but `/`, `?` and `#`: what a simple `{var}` may hold. */
  | { op: 'segment' }
  /** Try `first`, then `second`: the order the RegExp backtracks in. */
  | { op: 'split'; first: number; second: number }
  | { op: 'jump'; to: number }
  | { op: 'save'; slot: number }
  | { op: 'match' };

export interface CompiledTemplate {
  program: Instruction[];
  /** Variable names in the order their captures appear (a repeated name keeps its last value). */
  names: string[];
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;

/** The automaton of a parsed template: literals code unit by code unit, each variable a loop. */
export function compileTemplateParts(parts: readonly TemplatePart[]): CompiledTemplate {
  const program: Instruction[] = [];
  const names: string[] = [];
  const loop = (consume: Instruction, greedy: boolean): void => {
    const top = program.length;
    // split at top, the consuming step at top + 1, the jump back at top + 2, the exit at top + 3.
    program.push(
      greedy ? { op: 'split', first: top + 1, second: top + 3 } : { op: 'split', first: top + 3, second: top + 1 },
    );
    program.push(consume);
    program.push({ op: 'jump', to: top });
  };
  for (const part of parts) {
    if (part.literal !== undefined) {
      for (let index = 0; index < part.literal.length; index++)
        program.push({ op: 'char', code: part.literal.charCodeAt(index) });
      continue;
    }
    const slot = names.length * 2;
    names.push(part.variable!);
    if (part.operator === '#') {
      // `(?:#(.*))?`: the fragment when there is one (greedy), else nothing and an unset variable.
      const split: Instruction = { op: 'split', first: program.length + 1, second: -1 };
      program.push(split);
      program.push({ op: 'char', code: HASH });
      program.push({ op: 'save', slot });
      loop({ op: 'any' }, true);
      program.push({ op: 'save', slot: slot + 1 });
      split.second = program.length;
      continue;
    }
    program.push({ op: 'save', slot });
    // `{+var}` was `(.*?)` (lazy), `{var}` was `([^/?#]*)` (greedy).
    if (part.operator === '+') loop({ op: 'any' }, false);
    else loop({ op: 'segment' }, true);
    program.push({ op: 'save', slot: slot + 1 });
  }
  program.push({ op: 'match' });
  return { program, names };
}

/** Capture positions of one thread: [start0, end0, start1, end1, …], -1 when unset. */
type Captures = readonly number[];

interface Thread {
  pc: number;
  captures: Captures;
}

/**
 * The captured substrings when the whole of `text` is an instance (undefined for a `{#var}` that
 * was absent), else null. O(text length × program length) time, O(program length) threads.
 */
export function runTemplateMatcher(compiled: CompiledTemplate, text: string): (string | undefined)[] | null {
  const { program } = compiled;
  const slots = compiled.names.length * 2;
  let current: Thread[] = [];
  let next: Thread[] = [];
  // The step at which a program counter was last added: a thread reaching a state a higher-priority
  // thread already holds in this step is dropped (it can only do what that one does, later).
  const seenAtStep = new Int32Array(program.length).fill(-1);
  let matched: Captures | null = null;

  // Follows jumps, splits and saves from `pc` and queues the consuming states (and `match`) in
  // priority order. An explicit stack, so no template can make it recurse deeply.
  const addThread = (list: Thread[], start: number, startCaptures: Captures, step: number): void => {
    const stack: Thread[] = [{ pc: start, captures: startCaptures }];
    while (stack.length > 0) {
      const { pc, captures } = stack.pop()!;
      if (seenAtStep[pc] === step) continue;
      seenAtStep[pc] = step;
      const instruction = program[pc]!;
      if (instruction.op === 'jump') stack.push({ pc: instruction.to, captures });
      else if (instruction.op === 'split') {
        // Pushed second first, so `first` is explored (and queued) before it.
        stack.push({ pc: instruction.second, captures });
        stack.push({ pc: instruction.first, captures });
      } else if (instruction.op === 'save') {
        const copy = captures.slice();
        copy[instruction.slot] = step;
        stack.push({ pc: pc + 1, captures: copy });
      } else list.push({ pc, captures });
    }
  };

  addThread(current, 0, new Array<number>(slots).fill(-1), 0);
  for (let position = 0; position <= text.length; position++) {
    const code = position < text.length ? text.charCodeAt(position) : -1;
    for (const thread of current) {
      const instruction = program[thread.pc]!;
      if (instruction.op === 'match') {
        // Anchored at the end: only a thread that has read every code unit matches; it outranks
        // every thread after it in the list, so those are cut.
        if (position === text.length) {
          matched = thread.captures;
          break;
        }
        continue;
      }
      if (code === -1) continue;
      const consumes =
        instruction.op === 'any' ||
        (instruction.op === 'segment' && code !== SLASH && code !== QUESTION && code !== HASH) ||
        (instruction.op === 'char' && instruction.code === code);
      if (consumes) addThread(next, thread.pc + 1, thread.captures, position + 1);
    }
    if (matched || next.length === 0) break;
    [current, next] = [next, current];
    next.length = 0;
  }
  if (!matched) return null;
  const found: (string | undefined)[] = [];
  for (let slot = 0; slot < slots; slot += 2) {
    const start = matched[slot]!;
    const end = matched[slot + 1]!;
    found.push(start >= 0 && end >= 0 ? text.slice(start, end) : undefined);
  }
  return found;
}
