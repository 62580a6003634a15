// The field shortcuts (src/core/shortcuts.ts): one table that both the CLI's `kiln add`
// options and the HTTP API's render-request keys follow, so a row added there works in both.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "../../src/cli/args.ts";
import { fieldValues } from "../../src/cli/fields.ts";
import { parseRenderRequest } from "../../src/core/render-request.ts";
import { FIELD_SHORTCUTS, shortcutMax } from "../../src/core/shortcuts.ts";

/** A value the shortcut accepts: its largest number, or some text. */
const valueFor = (shortcut: (typeof FIELD_SHORTCUTS)[number]) =>
  String(shortcutMax(shortcut) ?? `text-${shortcut.field}`);

const options = Object.fromEntries(
  FIELD_SHORTCUTS.map((shortcut) => [shortcut.option, { type: "string" as const }]),
);

describe("field shortcuts", () => {
  test("numbers: replicas up to u32, ports up to u16; the rest is text", () => {
    assert.deepEqual(
      FIELD_SHORTCUTS.map((shortcut) => [shortcut.field, shortcutMax(shortcut)]),
      [
        ["image", undefined],
        ["replicas", 4294967295],
        ["port", 65535],
        ["target_port", 65535],
        ["namespace", undefined],
        ["host", undefined],
        ["path", undefined],
        ["service", undefined],
      ],
    );
  });

  test("every CLI option sets its field, and --set still wins", () => {
    const argv = FIELD_SHORTCUTS.flatMap((shortcut) => [
      `--${shortcut.option}`,
      valueFor(shortcut),
    ]);
    const expected = Object.fromEntries(FIELD_SHORTCUTS.map((s) => [s.field, valueFor(s)]));
    assert.deepEqual(fieldValues(parse(argv, options)), expected);
    assert.deepEqual(
      fieldValues(
        parse(["--target-port", "80", "--set", "target_port=x"], {
          ...options,
          set: { type: "string", multiple: true },
        }),
      ),
      {
        target_port: "x",
      },
    );
  });

  test("the CLI passes a shortcut's value to its field as typed (the field's own format checks it); the API's number keys keep their bits", () => {
    for (const shortcut of FIELD_SHORTCUTS) {
      const max = shortcutMax(shortcut);
      if (max === undefined) continue;
      assert.deepEqual(fieldValues(parse([`--${shortcut.option}`, "http-web"], options)), {
        [shortcut.field]: "http-web",
      });
      assert.throws(() =>
        parseRenderRequest({ reference: "r", name: "n", [shortcut.key]: max + 1 }),
      );
    }
  });

  test("every request key sets its field as text; a key in `fields` wins", () => {
    const body: Record<string, unknown> = { reference: "k8s/service", name: "web" };
    for (const shortcut of FIELD_SHORTCUTS) {
      body[shortcut.key] = shortcutMax(shortcut) ?? valueFor(shortcut);
    }
    const expected = Object.fromEntries(FIELD_SHORTCUTS.map((s) => [s.field, valueFor(s)]));
    assert.deepEqual(parseRenderRequest(body).fields, expected);
    assert.deepEqual(
      parseRenderRequest({ ...body, fields: { target_port: "http" } }).fields.target_port,
      "http",
    );
  });
});
