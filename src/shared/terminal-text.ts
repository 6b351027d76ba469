// Human text for a terminal, where a tree or a project supplies part of it (file names, URIs, tool
// names, a script's stderr): its control characters are shown as escapes instead of being sent
// raw, so a file named `\x1b[2J…` cannot clear the screen, retitle the window, forge a hyperlink
// or a fake "no problems" line, and a bidi override cannot make a name read as another. The
// commands print their messages line by line through writeHumanLines, the one place this happens;
// the messages themselves stay raw (and --json output escapes through JSON itself).

/**
 * C0 controls but tab (so also newline and carriage return: one message is one line), DEL, C1
 * controls, and the invisible bidi and line-breaking format characters (Trojan Source, CVE-2021-42574).
 */
const UNSAFE_CHARACTERS = /(?!\t)[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

/** `text` with every unsafe character written as `\n`, `\r`, `\xHH` or `\uHHHH`. */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (character) => {
    const code = character.charCodeAt(0);
    return NAMED[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
  });
}

/** Writes each line escaped, ending each with a newline. */
export function writeHumanLines(stream: NodeJS.WritableStream, lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.map(escapeTerminalText).join('\n')}\n`);
}
