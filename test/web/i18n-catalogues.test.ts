// The message catalogues (web/src/i18n/en.json, fr.json) against each other and against the
// code: every message exists in both languages with the plural forms its language needs, every
// message is used and every key the code asks for exists, and the French is set with French
// typography. Read as text, statically: a key added in one place only fails here before any
// browser runs.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { FIELD_RULE_CODES } from "../../src/core/errors.ts";
import { FORMAT_RULES } from "../../src/core/formats.ts";
import { CHECK_RULES } from "../../src/core/project/checks/check-project.ts";
import { EXEC_PATH_RULES } from "../../src/core/sensitive-paths.ts";
import {
  execPathKey,
  fieldRuleKey,
  findingKey,
  formatKey,
  isBuiltKey,
  isCoreWordedKey,
  keyInCode,
  pluralForm,
  ruleKey,
} from "../../web/src/i18n/keys.ts";

const WEB_SRC = fileURLToPath(new URL("../../web/src/", import.meta.url));
const LANGUAGES = ["en", "fr"] as const;

function catalogue(language: string): Record<string, string> {
  return JSON.parse(readFileSync(join(WEB_SRC, "i18n", `${language}.json`), "utf8"));
}

/**
 * The keys the code asks for, without plural forms, per language. Check rules' and formats'
 * keys are left out: English words them as the core does and holds none, and the code builds
 * them from the rule's id or the format's name, so they are checked against the core's lists.
 */
function codeKeys(messages: Record<string, string>): Set<string> {
  return new Set(
    Object.keys(messages)
      .filter((key) => !isCoreWordedKey(key))
      .map(keyInCode),
  );
}

/** Every .ts and .tsx file of the dashboard's source, concatenated. */
function sourceText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry)) texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(WEB_SRC);
  return texts.join("\n");
}

/** Every key asked for literally: `t("key"` and `translate("key"`. */
function keysAskedFor(source: string): Set<string> {
  return new Set(
    [...source.matchAll(/\b(?:t|translate)\(\s*"([^"]+)"/g)].map((match) => match[1] as string),
  );
}

/** Where a French message breaks French typography, described; none when it is set right. */
function frenchTypographyFaults(key: string, message: string): string[] {
  // code quoted in backticks and {{placeholders}} keep their own characters
  const prose = message.replaceAll(/`[^`]*`/g, "`…`").replaceAll(/\{\{[^}]*\}\}/g, "{{…}}");
  const faults: string[] = [];
  if (prose.includes("'")) faults.push(`${key}: a straight apostrophe (write ’)`);
  if (/"/.test(prose)) faults.push(`${key}: straight quotes (write « » with no-break spaces)`);
  if (/[^\u202f\u00a0][;!?](?:\s|$)/.test(prose)) {
    faults.push(`${key}: ; ! ? without a narrow no-break space before it`);
  }
  if (/[^\u00a0\u202f]:(?:\s|$)/.test(prose)) {
    faults.push(`${key}: a colon without a no-break space before it`);
  }
  if (/«[^\u00a0\u202f]|[^\u00a0\u202f]»/.test(prose)) {
    faults.push(`${key}: « » without no-break spaces inside`);
  }
  if (prose.includes("...")) faults.push(`${key}: three dots (write …)`);
  return faults;
}

describe("the dashboard's message catalogues", () => {
  const messages = Object.fromEntries(LANGUAGES.map((language) => [language, catalogue(language)]));

  it("every message exists in English and in French", () => {
    const english = codeKeys(messages.en ?? {});
    const french = codeKeys(messages.fr ?? {});
    assert.deepEqual(
      [...english].filter((key) => !french.has(key)),
      [],
      "in en.json, missing from fr.json",
    );
    assert.deepEqual(
      [...french].filter((key) => !english.has(key)),
      [],
      "in fr.json, missing from en.json",
    );
  });

  it("a plural message has every plural form its language's rules name, and no other", () => {
    for (const language of LANGUAGES) {
      const forms = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      const byKey = new Map<string, string[]>();
      for (const key of Object.keys(messages[language] ?? {})) {
        const form = pluralForm(key);
        if (form === undefined) continue;
        byKey.set(keyInCode(key), [...(byKey.get(keyInCode(key)) ?? []), form]);
      }
      for (const [key, present] of byKey) {
        assert.deepEqual(present.sort(), [...forms].sort(), `${language}: ${key}'s plural forms`);
      }
    }
  });

  it("every key the code asks for is in the catalogue, and every catalogue key is used", () => {
    const source = sourceText();
    const known = codeKeys(messages.en ?? {});
    assert.deepEqual(
      [...keysAskedFor(source)].filter((key) => !known.has(key)),
      [],
      "asked for by the code, in no catalogue",
    );
    // a key is used when the code names it as a string: t("key") or a map of keys; the keys
    // built from a rule id or a field rule's code are checked against the core's lists below
    assert.deepEqual(
      [...known].filter((key) => !isBuiltKey(key) && !source.includes(`"${key}"`)),
      [],
      "in the catalogues, used nowhere in web/src",
    );
  });

  it("every check rule, format rule and exec-path rule of the core has its French, and nothing else does", () => {
    const french = messages.fr ?? {};
    const expected = [
      ...CHECK_RULES.flatMap((rule) => [ruleKey(rule.id, "summary"), ruleKey(rule.id, "fix")]),
      ...Object.keys(FORMAT_RULES).map(formatKey),
      ...EXEC_PATH_RULES.map((rule) => execPathKey(rule.pattern)),
    ];
    assert.deepEqual(
      expected.filter((key) => !french[key]?.trim()),
      [],
      "a check rule's summary or fix, a format's rule or what runs a file, missing from fr.json",
    );
    assert.deepEqual(
      Object.keys(french).filter((key) => isCoreWordedKey(key) && !expected.includes(key)),
      [],
      "in fr.json for a rule or format the core does not have",
    );
    // English is the core's own wording: such a key in en.json would be a second copy to drift
    assert.deepEqual(
      Object.keys(messages.en ?? {}).filter(isCoreWordedKey),
      [],
      "core-worded keys in en.json",
    );
  });

  it("every check rule's finding and every field rule's code has its sentence in English and in French, and no other rule does", () => {
    const built = [
      ...CHECK_RULES.map((rule) => findingKey(rule.id)),
      // a fixed format is worded by the format's key, checked with the core-worded keys
      ...FIELD_RULE_CODES.filter((code) => code !== "format").map(fieldRuleKey),
    ];
    // a form of a sentence (`_noInventory`, `_range`) and a plural form count for their rule
    const ruleOf = (key: string) =>
      built.find((rule) => key === rule || key.startsWith(`${rule}_`));
    for (const language of LANGUAGES) {
      const keys = Object.keys(messages[language] ?? {}).filter(isBuiltKey);
      const worded = new Set(keys.map(ruleOf));
      assert.deepEqual(
        built.filter((key) => !worded.has(key)),
        [],
        `a rule without its sentence in ${language}.json`,
      );
      assert.deepEqual(
        keys.filter((key) => ruleOf(key) === undefined),
        [],
        `in ${language}.json for a rule or code the core does not have`,
      );
    }
  });

  it("the French is set with French typography", () => {
    const faults = Object.entries(messages.fr ?? {}).flatMap(([key, message]) =>
      frenchTypographyFaults(key, message),
    );
    assert.deepEqual(faults, []);
  });

  it("a message names the same placeholders in both languages", () => {
    const placeholders = (message: string) =>
      [...message.matchAll(/\{\{\s*(\w+)/g)].map((match) => match[1]).sort();
    for (const [key, english] of Object.entries(messages.en ?? {})) {
      const french = messages.fr?.[key];
      if (french === undefined || pluralForm(key) !== undefined) continue;
      assert.deepEqual(placeholders(french), placeholders(english), key);
    }
  });
});
