// The values a command gives one component from its options: fields from the shortcut options
// and `--set`, labels from `--label` (kiln add, kiln render).
import { FIELD_SHORTCUTS } from "../core/shortcuts.ts";
import { keyValues, listOption, type Parsed, stringOption } from "./args.ts";

/**
 * Shortcut options first, then `--set`, so `--set` wins. A shortcut's value is the field's
 * value, checked only by the field's own format and bounds (as the component declares them,
 * before rendering): `--target-port http-web` is as good as `--set target_port=http-web`, and
 * `--port 0` fails with the field's message, not with another rule of the option's own.
 */
export function fieldValues(parsed: Parsed): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const shortcut of FIELD_SHORTCUTS) {
    const value = stringOption(parsed, shortcut.option);
    if (value !== undefined) fields[shortcut.field] = value;
  }
  return { ...fields, ...keyValues(listOption(parsed, "set"), "--set") };
}

/** `--label KEY=VALUE` pairs; a later one with the same key wins. */
export function labelValues(parsed: Parsed): Record<string, string> {
  return keyValues(listOption(parsed, "label"), "--label");
}
