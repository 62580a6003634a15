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

/** The part of a check rule the dashboard can word in another language than the core's. */
export type RulePart = "summary" | "fix";

/**
 * The catalogue key of a check rule's part, `rule.<id>.summary` or `rule.<id>.fix`: built from
 * the rule's id, so the catalogue test checks these keys against the core's rule list rather
 * than against the code's literal keys.
 */
export function ruleKey(ruleId: string, part: RulePart): string {
  return `rule.${ruleId}.${part}`;
}

/**
 * The catalogue key of what a value of a field format must be, `format.<format>`: built from
 * the format's name, checked against the core's table of format rules.
 */
export function formatKey(format: string): string {
  return `format.${format}`;
}

/**
 * The catalogue key of what runs a file of an exec-path rule, `execPath.<pattern>`: keyed by
 * the rule's pattern, its one name, checked against the core's list of those rules.
 */
export function execPathKey(pattern: string): string {
  return `execPath.${pattern}`;
}

/**
 * The catalogue key of a check finding's sentence, `finding.<rule id>`, in every language: the
 * dashboard words a finding from its params; the catalogue test checks these keys against the
 * core's rule list. A rule whose sentence has forms adds them as `finding.<id>_<variant>`.
 */
export function findingKey(ruleId: string): string {
  return `finding.${ruleId}`;
}

/**
 * The catalogue key of what a field rule says a value must be, `fieldRule.<code>` (FieldProblem's
 * `code`), in every language; a rule with forms adds `fieldRule.<code>_<form>`. The `format`
 * code is worded by the format's own key instead (formatKey).
 */
export function fieldRuleKey(code: string): string {
  return `fieldRule.${code}`;
}

/**
 * Whether a catalogue key is built from a name of the core's (a rule id, a field rule's code)
 * rather than written in the code: the catalogue test checks these against the core's lists.
 */
export function isBuiltKey(catalogueKey: string): boolean {
  return ["finding.", "fieldRule."].some((prefix) => catalogueKey.startsWith(prefix));
}

/**
 * Whether a catalogue key words, in another language, a sentence the core words in English
 * (a check rule's summary or fix, a format's rule, what runs a file): English holds none of these keys, since
 * its words are the core's own, shown as the CLI and the API show them.
 */
export function isCoreWordedKey(catalogueKey: string): boolean {
  return ["rule.", "format.", "execPath."].some((prefix) => catalogueKey.startsWith(prefix));
}
