// Values written into command lines that people copy into a POSIX shell (sh, bash, zsh): the
// `kiln add` line that restores a removed component, the example in a missing field's hint, the
// `rm` of a journal kiln refuses, the dashboard's Commands export. The shell must hand kiln each
// value exactly as it is held - quotes, spaces, `$()`, newlines, unicode, a leading `-` or `=`,
// an empty value. Pure: the dashboard uses it in the browser.
//
// Hand-written rather than shell-quote's `quote`, which escapes plain `=`, `:` and `@` with
// backslashes (`port\=80`, `nginx\:1.27`): correct, but these lines are for people to read.

/** Characters no POSIX shell treats specially anywhere in a word (not first, as `~` or `#` are). */
const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/**
 * Can `value` be written bare? Every character plain, and not starting with `=`: zsh (its EQUALS
 * option, on by default) replaces a word `=foo` with the path of the command `foo`, or fails.
 */
function isBareWord(value: string): boolean {
  return PLAIN_WORD.test(value) && !value.startsWith("=");
}

/**
 * `value` as one shell word: bare when isBareWord, else in single quotes, inside which nothing
 * is special, with each `'` written as `'\''` (close, an escaped quote, reopen). The empty
 * value is `''`, a word of its own.
 */
export function shellWord(value: string): string {
  return isBareWord(value) ? value : singleQuoted(value);
}

/** `value` in single quotes for a POSIX shell, plain or not (a word of a generated script). */
export function singleQuoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * `--option value`, or `--option=value` when the value starts with `-`: as a word of its own it
 * would be read as an option, not as the option's value.
 */
export function shellOption(name: string, value: string): string {
  return value.startsWith("-") ? `${name}=${shellWord(value)}` : `${name} ${shellWord(value)}`;
}
