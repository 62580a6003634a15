// Rules that hold for any component, whatever it is: it renders, its JSON-looking fields are
// JSON, and no two components write one path.
import { errorMessage } from "../../errors.ts";
import type { ProjectFacts } from "../facts.ts";
import { defineRule, type FindingParams, type Issue, quote, type RuleContext } from "./rule.ts";

/** render-error's parts: the component and the render's own error, in the core's English. */
function renderErrorParams(context: RuleContext, index: number, error: string): FindingParams {
  return { component: context.named(index), error };
}

/** A component that does not render writes nothing; everything else about it is a guess. */
function renderErrors(_facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  context.project.components.forEach((component, index) => {
    if (component.renderError === undefined) return;
    issues.push({
      message: `${context.who(index)} does not render: ${component.renderError} - fix its fields`,
      components: [index],
      params: renderErrorParams(context, index, component.renderError),
    });
  });
  return issues;
}

export const RENDER_ERROR = defineRule({
  id: "render-error",
  severity: "error",
  summary: "a component does not render",
  fix: "fix the field the message names (`kiln view <reference>` lists the fields and their formats), then render again",
  check: renderErrors,
});

/** invalid-json's parts: the component, the field, its first character and the parser's reason. */
function invalidJsonParams(
  context: RuleContext,
  index: number,
  field: string,
  first: string,
  error: string,
): FindingParams {
  return { component: context.named(index), field, first, error };
}

/**
 * A value that starts like JSON but is not reaches the template as plain text, so a list or
 * map the template expects silently becomes a string.
 */
function invalidJson(_facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  context.project.components.forEach((component, index) => {
    for (const [field, value] of Object.entries(component.fields)) {
      const first = value.trimStart()[0];
      if (first !== "[" && first !== "{") continue;
      try {
        JSON.parse(value);
      } catch (error) {
        issues.push({
          message: `${context.who(index)}: field ${quote(field)} starts with ${quote(first)} but is not valid JSON (${errorMessage(error)}), so the template gets it as plain text - fix the JSON`,
          components: [index],
          params: invalidJsonParams(context, index, field, first, errorMessage(error)),
        });
      }
    }
  });
  return issues;
}

export const INVALID_JSON = defineRule({
  id: "invalid-json",
  severity: "error",
  summary: "a field starts with `[` or `{` but is not valid JSON",
  fix: "write the field's value as valid JSON (quoted keys and strings, no trailing comma), or as plain text that does not start with `[` or `{`",
  check: invalidJson,
});

/** duplicate-path's parts: the components and the path they all write. */
function duplicatePathParams(
  context: RuleContext,
  components: readonly number[],
  path: string,
): FindingParams {
  return { components: components.map(context.named), path };
}

/** Two components writing one path: setup refuses the run, so say which ones before it does. */
function duplicatePaths(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const { path, components } of facts.written.values()) {
    if (components.length < 2) continue;
    issues.push({
      message: `${components.map(context.who).join(" and ")} all write ${quote(path)} - rename one of them or change the field that sets its path`,
      components,
      params: duplicatePathParams(context, components, path),
    });
  }
  return issues;
}

export const DUPLICATE_PATH = defineRule({
  id: "duplicate-path",
  severity: "error",
  summary: "two components write one path",
  fix: "rename one of the two components (or change the field that names the path) so each writes its own file",
  check: duplicatePaths,
});
