// What a check rule is: an id, a severity, a one-line summary and one function from the project's
// facts to the issues it finds. The registry (index.ts) stamps each issue with its rule's id and
// severity, so the list of rules the docs and `kiln check --help` print is the code that runs.
import type { FactKind } from "../../vocabulary.ts";
import type { CheckProject, ProjectFacts } from "../facts.ts";

export type Severity = "error" | "warning";

export interface FindingComponent {
  /** Index in the project's component list. */
  index: number;
  reference: string;
  name: string;
}

/** A component a fix adds, in preset form. */
export interface ComponentToAdd {
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

export interface Fix {
  label: string;
  add: ComponentToAdd[];
}

/** A component a finding's params name: its reference and name, as the project has them. */
export interface NamedComponent {
  reference: string;
  name: string;
}

/**
 * One part a finding's sentence is built from: a name, a path or a value as the project has
 * it (never quoted), a number, a list of them, or components.
 */
export type FindingParam =
  | string
  | number
  | readonly string[]
  | readonly number[]
  | NamedComponent
  | readonly NamedComponent[];

/**
 * The parts of a finding's sentence, by name, so that a front words the finding in its own
 * language (the dashboard's catalogues, `finding.<rule id>`). `variant` names which form of
 * the rule's sentence applies (`noInventory` when the project has none); `count` is the
 * number a plural form agrees with.
 */
export type FindingParams = Readonly<Record<string, FindingParam>>;

export interface Finding<Id extends string = string> {
  rule: Id;
  severity: Severity;
  /** What is wrong and what to do about it, for people. */
  message: string;
  /** The components involved; the first is the one to edit. */
  components: FindingComponent[];
  /** A fix that adds components (e.g. vendor a missing role). */
  fix?: Fix | undefined;
  /** What `message` is built from, for a front that words it in another language. */
  params: FindingParams;
}

/** What a rule's function returns: the finding without what the registry knows. */
export interface Issue {
  message: string;
  /** Indexes of the components involved; the first is the one to edit. */
  components: number[];
  fix?: Fix | undefined;
  params: FindingParams;
}

export interface RuleInfo<Id extends string = string> {
  id: Id;
  severity: Severity;
  summary: string;
  /** What to do about a finding of the rule, for people and agents (`explain_check`). */
  fix: string;
}

/** Helpers every rule words its messages with. */
export interface RuleContext {
  project: CheckProject;
  /** `<reference> \`<name>\`` of a component. */
  who(index: number): string;
  /** A component's reference and name, for a finding's params. */
  named(index: number): NamedComponent;
  /**
   * The catalogue's component of this kind that checks suggest adding (`kiln.suggest`), by
   * reference; undefined when the catalogue has none.
   */
  suggestion(kind: FactKind): string | undefined;
}

export interface Rule<Id extends string = string> extends RuleInfo<Id> {
  check(facts: ProjectFacts, context: RuleContext): Issue[];
}

/** Declares a rule; the registry in index.ts lists each once, in reporting order. */
export function defineRule<const Id extends string>(rule: Rule<Id>): Rule<Id> {
  return rule;
}

/** A value in backticks, as messages quote names and paths. */
export function quote(value: string): string {
  return `\`${value}\``;
}

/** `a k8s/service`, `an automation/role`: the suggested component, else the plain kind word. */
export function aComponent(context: RuleContext, kind: FactKind, word: string): string {
  const name = context.suggestion(kind) ?? word;
  return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;
}
