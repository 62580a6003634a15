// Generated render inputs for the catalogue's templates (fast-check), shared by the tests that
// render every built-in and `@kiln` item both ways (compiled-templates.test.ts) and hold the
// compiled path's fuel count against the engine's (compiled-fuel.test.ts): awkward strings,
// control characters, unicode, JSON-valued fields as lists and maps with the keys the templates
// read, missing fields, huge numbers.
import fc from "fast-check";
import type { RenderInput } from "../../src/core/context.ts";
import type { RegistryItem } from "../../src/core/item.ts";

/** Short texts that are awkward for a template: control characters, unicode, YAML words. */
const awkwardText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(
      "\u0000",
      "\t",
      "\n",
      "\r",
      "\u0085",
      "\u2028",
      "\ufeff",
      "\ud800",
      "%",
      ";",
      "#",
      "'",
      '"',
      "\\",
      " ",
      "-",
      ":",
      "{",
      "}",
      "[",
      "]",
      ",",
      "=",
      "$",
      "a",
      "0",
      "9",
      "é",
      "😀",
    ),
    maxLength: 10,
  }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "80",
    "8080",
    "-1",
    "1.5",
    "0755",
    "1e400",
    "123456789012345678901234567890",
    "yes",
    "no",
    "null",
    "none",
    "~",
    "true",
    "false",
    "off",
    "dir",
    "flat",
    "ansible",
    "a,b",
    " all ",
    "---",
    "...",
    "<<",
    "=",
    "http",
    "9223372036854775808",
  ),
);
/** A JSON scalar of any kind, awkward numbers included. */
const jsonScalar = fc.oneof(
  awkwardText,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e21, 2 ** 60, -0, 123456789012345680000, 1.5e-7, 0.1, 1e16, 1e-5),
  fc.boolean(),
  fc.constant(null),
);
/** JSON values: scalars, lists and maps, with the keys the catalogue's templates read. */
export const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, jsonScalar, tie("list"), tie("map")),
  list: fc.array(tie("value"), { maxLength: 4 }),
  map: fc.dictionary(
    fc.oneof(
      awkwardText,
      fc.constantFrom(
        "name",
        "group",
        "members",
        "children",
        "vars",
        "cm_host",
        "cm_user",
        "cm_port",
        "ssh_key_file",
        "hosts",
        "roles",
        "role",
        "when",
        "tags",
        "become",
        "pre_tasks",
        "post_tasks",
        "path",
        "app",
      ),
    ),
    tie("value"),
    { maxKeys: 5 },
  ),
}));
/** A field's value as a user could type it: awkward text, or JSON. */
const anyFieldText = fc.oneof(
  { weight: 3, arbitrary: awkwardText },
  { weight: 2, arbitrary: jsonValue.value.map((value) => JSON.stringify(value)) },
);
/**
 * Render inputs for `item`: its name, any of its fields (and `namespace` and an undeclared one)
 * as awkward text or JSON, labels, both automation profiles. `fieldText` may replace how a
 * field's value is made (the fuel test makes long lists with it).
 */
export function renderInputFor(
  item: RegistryItem,
  fieldText: fc.Arbitrary<string> = anyFieldText,
): fc.Arbitrary<RenderInput> {
  // optional fields are left out, not undefined: a RenderInput as a caller would pass it
  return fc.record({
    name: fc.oneof(fc.constantFrom("web", "db-1", "x"), awkwardText),
    fields: fc.record(
      Object.fromEntries(
        [...item.fields.map((field) => field.name), "namespace", "extra"].map((name) => [
          name,
          fieldText,
        ]),
      ),
      { requiredKeys: [] },
    ),
    labels: fc.dictionary(fc.oneof(fc.constantFrom("app", "tier"), awkwardText), awkwardText, {
      maxKeys: 3,
    }),
    defaultNamespace: fc.constantFrom("default", "prod"),
    automationProfile: fc.constantFrom("cm" as const, "ansible" as const),
  }) as fc.Arbitrary<RenderInput>;
}
