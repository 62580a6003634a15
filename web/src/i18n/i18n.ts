// The dashboard's languages: English and French, every word of the interface from the message
// catalogues beside this file (en.json, fr.json: flat keys, one per message). i18next does the
// lookup, the interpolation, the plurals (from the browser's Intl.PluralRules: French has `one`
// for 0 and 1, English for 1 only) and the number formats (`{{count, number}}` goes through
// Intl.NumberFormat): the library of the field, 13 KB gzipped in the first load.
//
// The language shown is the one the user chose with the top bar's switch (remembered in
// localStorage), else the first of the browser's preferred languages that the dashboard has,
// else English. `<html lang>` follows it, so that screen readers and hyphenation use the
// right language.
import i18next from "i18next";
import { createContext } from "preact";
import { useContext, useState } from "preact/hooks";
import en from "./en.json" with { type: "json" };
import fr from "./fr.json" with { type: "json" };
import { type RulePart, ruleKey } from "./keys.ts";

export const LANGUAGES = ["en", "fr"] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's own name, as its speakers write it (the switch shows it in any language). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", fr: "Français" };

/** The localStorage key of the user's choice. */
const STORAGE_KEY = "kiln-language";

type CatalogueKey = keyof typeof en;
type PluralBase<K> = K extends `${infer Base}_${"zero" | "one" | "two" | "few" | "many" | "other"}`
  ? Base
  : never;
/** A key the code may ask for: a catalogue key, or a plural key without its form. */
export type MessageKey =
  | Exclude<CatalogueKey, `${string}_${"one" | "other"}`>
  | PluralBase<CatalogueKey>;

/** What a message names by `{{name}}`, and `count` for a plural one. */
export type MessageValues = Record<string, string | number>;

function isLanguage(value: unknown): value is Language {
  return LANGUAGES.includes(value as Language);
}

/**
 * The language of the dashboard's first paint: the stored choice, else the first preferred
 * language (`fr-CA` counts as `fr`) that has a catalogue, else English.
 */
export function pickLanguage(stored: string | null, preferred: readonly string[]): Language {
  if (isLanguage(stored)) return stored;
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split("-")[0];
    if (isLanguage(primary)) return primary;
  }
  return "en";
}

function storedChoice(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    // storage can be refused (a privacy setting): the browser's languages still choose
    return null;
  }
}

function browserLanguages(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

const i18n = i18next.createInstance();
void i18n.init({
  resources: { en: { translation: en }, fr: { translation: fr } },
  lng: pickLanguage(storedChoice(), browserLanguages()),
  fallbackLng: "en",
  // the catalogues are in the bundle: ready before the first render, no loading state
  initAsync: false,
  // flat keys: a `.` in a key is part of its name, not a path into nested objects
  keySeparator: false,
  nsSeparator: false,
  // Preact escapes every text it renders; escaping here too would show `&amp;`
  interpolation: { escapeValue: false },
  returnNull: false,
});
showLanguage(currentLanguage());

/** The language the interface speaks now. */
export function currentLanguage(): Language {
  const language = i18n.language;
  return isLanguage(language) ? language : "en";
}

/** `<html lang>` and the window's title follow the language shown. */
function showLanguage(language: Language): void {
  if (typeof document === "undefined") return;
  document.documentElement.lang = language;
  document.title = translate("document.title");
}

/** The message of `key` in the current language, `{{name}}`s filled from `values`. */
export function translate(key: MessageKey, values?: MessageValues): string {
  return i18n.t(key, values ?? {}) as string;
}

/**
 * The message of a key built from a name of the core's (keys.ts: findingKey, fieldRuleKey), in
 * the current language; `form` picks one of its forms (i18next's context: `<key>_<form>`, the
 * plain key when the language has no such form).
 */
export function translateBuilt(key: string, values: MessageValues, form?: string): string {
  return i18n.t(key, form === undefined ? values : { ...values, context: form }) as string;
}

/**
 * `items` as one phrase of the current language: `a, b and c` (`or` when `kind` is
 * `disjunction`), by Intl.ListFormat.
 */
export function listWords(
  items: readonly string[],
  kind: "conjunction" | "disjunction" = "conjunction",
): string {
  return new Intl.ListFormat(currentLanguage(), { type: kind }).format(items);
}

/**
 * A check rule's summary or fix in the current language, looked up by the rule's id. English
 * is the core's own sentence (`english`), so the dashboard, the CLI and the API word a rule
 * alike; only the other languages' catalogues hold rule keys, and a rule missing from one
 * falls back to the core's English rather than showing its key.
 */
export function translateRule(ruleId: string, part: RulePart, english: string): string {
  return translateCoreWords(ruleKey(ruleId, part), english);
}

/**
 * A sentence the core words in English (`english`), in the current language by its catalogue
 * key (keys.ts: isCoreWordedKey); the core's English when the language has no such key.
 */
export function translateCoreWords(key: string, english: string): string {
  return i18n.t(key, { defaultValue: english }) as string;
}

/**
 * Whether the current language words what the core words in English (check rules, format rules,
 * kinds of refusal) itself; in English the dashboard shows the core's sentences as they are.
 */
export function translatesCoreWords(): boolean {
  return currentLanguage() !== "en";
}

/** Switches the interface to `language` and remembers the choice across reloads. */
export function chooseLanguage(language: Language): void {
  void i18n.changeLanguage(language);
  showLanguage(currentLanguage());
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // applied to this page, not remembered
  }
}

/** The current language, provided at the root: a change re-renders every reader. */
export const LanguageContext = createContext<{
  language: Language;
  choose: (language: Language) => void;
}>({ language: "en", choose: chooseLanguage });

/** `translate`, in a component that re-renders when the language changes. */
export function useT(): typeof translate {
  useContext(LanguageContext);
  return translate;
}

/** The language shown and the switch's way to change it. */
export function useLanguage(): { language: Language; choose: (language: Language) => void } {
  return useContext(LanguageContext);
}

/** The state the root provides: the language, re-rendering the interface when it changes. */
export function useLanguageState(): { language: Language; choose: (language: Language) => void } {
  const [language, setLanguage] = useState<Language>(currentLanguage);
  return {
    language,
    choose: (next) => {
      chooseLanguage(next);
      setLanguage(next);
    },
  };
}
