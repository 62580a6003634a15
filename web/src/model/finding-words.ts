// A check finding in the interface's language, worded from its parts: the rule's id picks the
// catalogue's sentence (`finding.<rule id>`) and the finding's params fill it. The core's
// English `message` is what the CLI, the API and MCP print; the dashboard never shows it, so
// that English and French are built alike and a reworded catalogue cannot drift from the parts.
import type {
  Finding,
  FindingParam,
  NamedComponent,
} from "../../../src/core/project/checks/rule.ts";
import { listWords, type MessageValues, translateBuilt } from "../i18n/i18n.ts";
import { findingKey } from "../i18n/keys.ts";

function isNamedComponent(param: unknown): param is NamedComponent {
  return typeof param === "object" && param !== null && "reference" in param && "name" in param;
}

/** A component as findings name it in every language: its reference and its name as code. */
function componentWords({ reference, name }: NamedComponent): string {
  return `${reference} \`${name}\``;
}

/**
 * One param as the sentence shows it: a component by its reference and name, a list as a
 * phrase of the language (names as code, numbers as they are), text and numbers as they are
 * (the catalogue's sentence puts code quotes around a name where it wants them).
 */
function paramWords(param: FindingParam): string | number {
  if (typeof param === "string" || typeof param === "number") return param;
  if (isNamedComponent(param)) return componentWords(param);
  const items = param as readonly (string | number | NamedComponent)[];
  return listWords(
    items.map((item) =>
      isNamedComponent(item)
        ? componentWords(item)
        : typeof item === "number"
          ? String(item)
          : `\`${item}\``,
    ),
  );
}

/** The finding's sentence in the interface's language, from its rule's id and its params. */
export function findingMessage(finding: Finding): string {
  const values: MessageValues = {};
  let form: string | undefined;
  for (const [name, param] of Object.entries(finding.params)) {
    if (name === "variant" && typeof param === "string") form = param;
    else values[name] = paramWords(param);
  }
  return translateBuilt(findingKey(finding.rule), values, form);
}
