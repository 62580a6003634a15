// Findings of the cross-component checks (src/core/project/checks/check-project.ts), with links and one-click fixes;
// the names and values a message quotes in backticks show as code.
import type { JSX } from "preact";
import { CHECK_RULES } from "../../../src/core/project/checks/check-project.ts";
import type { ComponentToAdd, Finding } from "../../../src/core/project/checks/rule.ts";
import { InlineCode } from "./common.tsx";

export function ChecksView(props: {
  findings: Finding[];
  pending: boolean;
  onSelect: (index: number) => void;
  onFix: (add: ComponentToAdd[]) => void;
}): JSX.Element {
  const fixes = props.findings.flatMap((finding) => finding.fix?.add ?? []);
  const errors = props.findings.filter((finding) => finding.severity === "error").length;
  const warnings = props.findings.length - errors;
  return (
    <section class="checks" data-testid="checks-view">
      <header class="checks-head">
        <div>
          <h2>Checks</h2>
          <p class="muted">
            Rules across components, the same as <code>kiln check &lt;preset&gt;</code>.
            {props.pending && " Updating…"}
          </p>
        </div>
        <div class="check-summary">
          <span class={`pill ${errors ? "error" : "ok"}`}>
            {errors} error{errors === 1 ? "" : "s"}
          </span>
          <span class={`pill ${warnings ? "warning" : "ok"}`}>
            {warnings} warning{warnings === 1 ? "" : "s"}
          </span>
          {fixes.length > 1 && (
            <button type="button" class="button primary small" onClick={() => props.onFix(fixes)}>
              Add all {fixes.length} missing roles
            </button>
          )}
        </div>
      </header>
      {props.findings.length === 0 && (
        <div class="all-clear">
          <div class="all-clear-mark">✓</div>
          <p>No problems found across {CHECK_RULES.length} rules.</p>
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
              <span class={`pill ${finding.severity}`}>{finding.severity}</span>
              <code class="rule">{finding.rule}</code>
            </div>
            <p data-testid="finding-message">
              <InlineCode text={finding.message} />
            </p>
            <div class="finding-actions">
              {finding.components.map((component) => (
                <button
                  type="button"
                  key={component.index}
                  class="link-button"
                  onClick={() => props.onSelect(component.index)}
                >
                  Edit {component.name} <span class="muted">({component.reference})</span>
                </button>
              ))}
              {finding.fix && (
                <button
                  type="button"
                  class="button small primary"
                  data-testid="fix"
                  onClick={() => finding.fix && props.onFix(finding.fix.add)}
                >
                  {finding.fix.label}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <details class="rules">
        <summary>All rules</summary>
        <table>
          <tbody>
            {CHECK_RULES.map((rule) => (
              <tr key={rule.id}>
                <td>
                  <code>{rule.id}</code>
                </td>
                <td>{rule.severity}</td>
                <td>{rule.summary}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
