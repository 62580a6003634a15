// The values a command gives one component from its options: fields from the shortcut options
// and `--set`, labels from `--label` (kiln add, kiln render).
import { FIELD_SHORTCUTS, shortcutMax } from "../core/shortcuts.ts";
import { keyValues, listOption, type Parsed, stringOption, wholeNumber } from "./args.ts";

/** Shortcut options first, then `--set`, so `--set` wins; numbers are checked like the API's. */
export function fieldValues(parsed: Parsed): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const shortcut of FIELD_SHORTCUTS) {
    const value = stringOption(parsed, shortcut.option);
    if (value === undefined) continue;
    const max = shortcutMax(shortcut);
    fields[shortcut.field] =
      max === undefined ? value : wholeNumber(value, `--${shortcut.option}`, max);
  }
  return { ...fields, ...keyValues(listOption(parsed, "set"), "--set") };
}

/** `--label KEY=VALUE` pairs; a later one with the same key wins. */
export function labelValues(parsed: Parsed): Record<string, string> {
  return keyValues(listOption(parsed, "label"), "--label");
}
