// Findings of the cross-component checks (src/core/project/checks/check-project.ts), with links and one-click fixes;
// the names and values a message quotes in backticks show as code. A rule's summary and fix are
// worded by rule id in the interface's language (English is the core's own sentence); a
// finding's sentence is worded in the interface's language from its rule id and its params
// (model/finding-words.ts), in English as in French.
import type { JSX } from "preact";
import { CHECK_RULES } from "../../../src/core/project/checks/check-project.ts";
import type {
  ComponentToAdd,
  Finding,
  Fix,
  Severity,
} from "../../../src/core/project/checks/rule.ts";
import {
  type MessageKey,
  type translate,
  translateRule,
  translatesCoreWords,
  useT,
} from "../i18n/i18n.ts";
import { findingMessage } from "../model/finding-words.ts";
import { InlineCode } from "./common.tsx";

/** A severity as the interface words it (the rule ids and messages stay the CLI's). */
const SEVERITY_WORD: Record<Severity, MessageKey> = {
  error: "checks.severityError",
  warning: "checks.severityWarning",
};

/**
 * A fix button's words: the core's label in English; in another language worded from what the
 * fix adds (one component: its reference and name), since the core's label is English only.
 */
function fixLabel(fix: Fix, t: typeof translate): string {
  const [only, ...others] = fix.add;
  if (!translatesCoreWords() || only === undefined || others.length > 0) return fix.label;
  return t("checks.fixAdd", { reference: only.reference, name: only.name });
}

export function ChecksView(props: {
  findings: Finding[];
  pending: boolean;
  onSelect: (index: number) => void;
  onFix: (add: ComponentToAdd[]) => void;
}): JSX.Element {
  const fixes = props.findings.flatMap((finding) => finding.fix?.add ?? []);
  const errors = props.findings.filter((finding) => finding.severity === "error").length;
  const warnings = props.findings.length - errors;
  const t = useT();
  return (
    <section class="checks" data-testid="checks-view">
      <header class="checks-head">
        <div>
          <h2>{t("app.tabChecks")}</h2>
          <p class="muted">
            <InlineCode text={t("checks.intro")} />
            {props.pending && ` ${t("checks.updating")}`}
          </p>
        </div>
        <div class="check-summary">
          <span class={`pill ${errors ? "error" : "ok"}`}>
            {t("checks.errors", { count: errors })}
          </span>
          <span class={`pill ${warnings ? "warning" : "ok"}`}>
            {t("checks.warnings", { count: warnings })}
          </span>
          {fixes.length > 1 && (
            <button type="button" class="button primary small" onClick={() => props.onFix(fixes)}>
              {t("checks.addAll", { count: fixes.length })}
            </button>
          )}
        </div>
      </header>
      {props.findings.length === 0 && (
        <div class="all-clear">
          <div class="all-clear-mark">✓</div>
          <p>{t("checks.allClear", { count: CHECK_RULES.length })}</p>
        </div>
      )}
      <ul class="findings">
        {props.findings.map((finding, index) => (
          <li
            key={index}
            class={`finding ${finding.severity}`}
            data-testid="finding"
            data-rule={finding.rule}
          >
            <div class="finding-top">
              <span class={`pill ${finding.severity}`}>{t(SEVERITY_WORD[finding.severity])}</span>
              <code class="rule">{finding.rule}</code>
            </div>
            <p data-testid="finding-message">
              <InlineCode text={findingMessage(finding)} />
            </p>
            <div class="finding-actions">
              {finding.components.map((component) => (
                <button
                  type="button"
                  key={component.index}
                  class="link-button"
                  onClick={() => props.onSelect(component.index)}
                >
                  {t("checks.edit", { name: component.name })}{" "}
                  <span class="muted">({component.reference})</span>
                </button>
              ))}
              {finding.fix && (
                <button
                  type="button"
                  class="button small primary"
                  data-testid="fix"
                  onClick={() => finding.fix && props.onFix(finding.fix.add)}
                >
                  <InlineCode text={fixLabel(finding.fix, t)} />
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <details class="rules">
        <summary>{t("checks.allRules")}</summary>
        <table>
          <tbody>
            {CHECK_RULES.map((rule) => (
              <tr key={rule.id}>
                <td>
                  <code>{rule.id}</code>
                </td>
                <td>{t(SEVERITY_WORD[rule.severity])}</td>
                <td>
                  <InlineCode text={translateRule(rule.id, "summary", rule.summary)} />
                  <div class="muted" data-testid="rule-fix">
                    <InlineCode
                      text={t("checks.ruleFix", { fix: translateRule(rule.id, "fix", rule.fix) })}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
