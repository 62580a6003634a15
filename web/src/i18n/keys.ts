// How a catalogue key relates to the key the code asks for: a plural message is stored once per
// plural form of its language (`files_one`, `files_other`; French also `files_many`), and the
// code asks for `files` with a `count`. The catalogue test reads keys through this rule.

/** The plural forms a catalogue key may end with (Intl.PluralRules' categories). */
const PLURAL_SUFFIX = /_(?:zero|one|two|few|many|other)$/;

/** The key the code uses for a catalogue key: `files_one` → `files`, `home.title` unchanged. */
export function keyInCode(catalogueKey: string): string {
  return catalogueKey.replace(PLURAL_SUFFIX, "");
}

/** The plural form a catalogue key is stored for (`one`), or undefined for a plain message. */
export function pluralForm(catalogueKey: string): string | undefined {
  return PLURAL_SUFFIX.exec(catalogueKey)?.[0].slice(1);
}
