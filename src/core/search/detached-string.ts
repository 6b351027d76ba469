// A copy of a short string that holds nothing but itself. V8 makes a substring of 13 or more
// characters (a regexp match, a slice, a trim) a view into the whole string it came from, so a
// search term or a title kept in a long-lived map or list keeps its whole document alive: every
// document of a build, through the stem cache and the posting run's dictionary. Portable.

/** V8's shortest substring that is a view (SlicedString::kMinLength); shorter ones are copies already. */
export const SHORTEST_VIEW = 13;

/** `text` as a string of its own (for strings meant to outlive the text they were cut from). */
export function detachedString(text: string): string {
  if (text.length < SHORTEST_VIEW) return text;
  // Slicing a concatenation flattens it into a new string first: the result is a view into that
  // copy (one character longer), never into `text`'s parent.
  return ` ${text}`.slice(1);
}
