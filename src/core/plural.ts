// Counting words in messages: `1 file`, `3 files`. Every front and the Node half word counts the
// same way through this one function.

/** `count` and `word`, with an `s` unless the count is one. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
