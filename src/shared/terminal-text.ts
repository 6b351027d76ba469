// Human text for a terminal, where a tree or a project supplies part of it (file names, URIs, tool
// names, a script's stderr): its control characters are shown as escapes instead of being sent
// raw, so a file named `\x1b[2J…` cannot clear the screen, retitle the window, forge a hyperlink
// or a fake "no problems" line, and a bidi override cannot make a name read as another. The
// commands print their messages line by line through writeHumanLines, the one place this happens;
// the messages themselves stay raw (and --json output escapes through JSON itself). A value given
// as a huge string (a 5,000-digit --port, a path of 4,000 characters) is shown by its ends and its
// length, so the error stays readable and the terminal is not flooded.

/**
 * C0 controls but tab (so also newline and carriage return: one message is one line), DEL, C1
 * controls, and the invisible bidi and line-breaking format characters (Trojan Source, CVE-2021-42574).
 * Spelled as ranges, which are \p{Cc} and \p{Bidi_Control} (both sets are closed by Unicode's
 * stability policy): a property escape makes V8 load ICU's property tables when the module loads,
 * which every bridge start paid for a regex it normally never runs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE_CHARACTERS = /[\0-\x08\n-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

/** `text` with every unsafe character written as `\n`, `\r`, `\xHH` or `\uHHHH`. */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (character) => {
    const code = character.charCodeAt(0);
    return NAMED[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
  });
}

/** Longer runs of non-space characters are shortened by writeHumanLines. */
export const LONGEST_SHOWN_WORD_CHARS = 240;
const SHOWN_HEAD_CHARS = 120;
const SHOWN_TAIL_CHARS = 40;
const LONG_WORD = new RegExp(`\\S{${LONGEST_SHOWN_WORD_CHARS + 1},}`, 'g');

/** `text` with each run of more than LONGEST_SHOWN_WORD_CHARS non-space characters cut to its ends. */
export function shortenLongWords(text: string): string {
  return text.replace(LONG_WORD, (word) => {
    // By code point, so a cut never splits a surrogate pair into a replacement character.
    const characters = Array.from(word);
    if (characters.length <= LONGEST_SHOWN_WORD_CHARS) return word;
    const head = characters.slice(0, SHOWN_HEAD_CHARS).join('');
    const tail = characters.slice(-SHOWN_TAIL_CHARS).join('');
    return `${head}…[${characters.length} characters]…${tail}`;
  });
}

/** Writes each line escaped and with long words shortened, ending each with a newline. */
export function writeHumanLines(stream: NodeJS.WritableStream, lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.map((line) => shortenLongWords(escapeTerminalText(line))).join('\n')}\n`);
}
