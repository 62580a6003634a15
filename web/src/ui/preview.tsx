// Live preview: the rendered files of the component being edited, errors inline; the dot and
// word beside its title say whether it is rendering, live, or failed to render.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { RenderResult } from "../api.ts";
import { translate, useT } from "../i18n/i18n.ts";
import type { Conflict } from "../model/conflicts.ts";
import { fieldErrorSummary } from "../model/field-errors.ts";
import { highlightedLines, type Token } from "../model/highlight.ts";
import { CopyButton, ErrorDetail, ServiceMessage } from "./common.tsx";

/** The preview's state: rendering wins (the error may be about to go), then error, then live. */
function previewStatus(
  pending: boolean,
  result: RenderResult | undefined,
): { state: "busy" | "error" | "live"; text: string; title: string } {
  if (pending) {
    return {
      state: "busy",
      text: translate("preview.busy"),
      title: translate("preview.busyTitle"),
    };
  }
  if (result && !result.ok) {
    return {
      state: "error",
      text: translate("preview.error"),
      title: translate("preview.errorTitle"),
    };
  }
  return { state: "live", text: translate("preview.live"), title: translate("preview.liveTitle") };
}

export function Preview(props: {
  result: RenderResult | undefined;
  pending: boolean;
  outputDir: string;
  conflicts: Conflict[];
  conflictName: (index: number) => string;
}): JSX.Element {
  const t = useT();
  const [active, setActive] = useState(0);
  const result = props.result;
  const status = previewStatus(props.pending, result);
  return (
    <section class="preview" data-testid="preview" aria-label={t("preview.title")}>
      <header class="panel-head">
        <h2>{t("preview.title")}</h2>
        <span class={`status-dot ${status.state}`} title={status.title} aria-hidden="true" />
        <span class={`muted small status-text ${status.state}`} data-testid="preview-status">
          {status.text}
        </span>
      </header>
      {!result && <p class="empty">{t("preview.rendering")}</p>}
      {result && !result.ok && (
        <div class="render-error" role="alert" data-testid="render-error">
          <strong>{t("fieldError.summaryTitle")}</strong>
          {result.field ? (
            // a field's problem is shown under the field; here only a short summary
            <p data-testid="render-error-summary">
              {t("fieldError.previewSummary", { summary: fieldErrorSummary(result.field) })}
            </p>
          ) : (
            <>
              <ServiceMessage failure={result} block />
              <ErrorDetail detail={result.detail} />
            </>
          )}
        </div>
      )}
      {props.conflicts.length > 0 && (
        <div class="render-error warning" data-testid="edit-conflict">
          {props.conflicts.map((conflict) => (
            <div key={conflict.path}>
              <code>{conflict.path}</code>{" "}
              {t("preview.alsoWrittenBy", { name: props.conflictName(conflict.existing) })}
            </div>
          ))}
        </div>
      )}
      {result?.ok && result.files.length === 0 && <p class="empty">{t("preview.noFiles")}</p>}
      {result?.ok && result.files.length > 0 && (
        <>
          <div class="file-tabs" role="tablist">
            {result.files.map((file, index) => (
              <button
                type="button"
                role="tab"
                key={file.path}
                aria-selected={index === Math.min(active, result.files.length - 1)}
                class={index === Math.min(active, result.files.length - 1) ? "active" : ""}
                data-testid="preview-tab"
                onClick={() => setActive(index)}
              >
                {file.path.split("/").pop()}
              </button>
            ))}
          </div>
          {(() => {
            const file = result.files[Math.min(active, result.files.length - 1)];
            if (!file) return null;
            return <FileView key={file.path} file={file} outputDir={props.outputDir} />;
          })()}
        </>
      )}
    </section>
  );
}

/**
 * The file's lines as tokens once the highlighter has them, else undefined (plain text: a file
 * of no highlighted language, or the first moment while the grammars load).
 */
function useHighlighted(content: string, path: string): Token[][] | undefined {
  const [highlighted, setHighlighted] = useState<{ content: string; lines: Token[][] }>();
  useEffect(() => {
    let current = true;
    highlightedLines(content, path)
      .then((lines) => {
        if (current && lines) setHighlighted({ content, lines });
      })
      // a grammar that fails leaves the file as plain text, which is still the whole file
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [content, path]);
  return highlighted?.content === content ? highlighted.lines : undefined;
}

/** One rendered file: its path, a copy button, and its lines numbered and highlighted. */
function FileView(props: {
  file: { path: string; content: string };
  outputDir: string;
}): JSX.Element {
  const t = useT();
  const { file } = props;
  const highlighted = useHighlighted(file.content, file.path);
  const lines = file.content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return (
    <div class="file-view">
      <div class="file-path mono" data-testid="preview-path">
        <span class="file-path-text">
          <span class="muted">{props.outputDir.replace(/\/$/, "")}/</span>
          {file.path}
        </span>
        <CopyButton
          text={file.content}
          label={t("preview.copyFile", { path: file.path })}
          testId="copy-file"
        />
      </div>
      <pre
        class={`code${highlighted ? " highlighted" : ""}`}
        data-testid="preview-content"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a long file scrolls by keyboard too (axe: scrollable-region-focusable)
        tabIndex={0}
      >
        {lines.map((line, index) => (
          <div class="code-line" key={index}>
            <span class="ln">{index + 1}</span>
            <span class="lc">
              {highlighted?.[index]
                ? highlighted[index].map((token, at) =>
                    token.kind === "plain" ? (
                      token.text
                    ) : (
                      <span key={at} class={`hl-${token.kind}`}>
                        {token.text}
                      </span>
                    ),
                  )
                : line || " "}
            </span>
          </div>
        ))}
      </pre>
    </div>
  );
}
