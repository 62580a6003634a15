// The Commands export: the `kiln init`/`kiln add` lines that rebuild this project exactly (the
// zip's files, kiln.toml and kiln.lock), and the preset file with `kiln setup` when that is
// shorter, each copyable (web/src/model/commands.ts writes them).
import type { JSX } from "preact";
import { useT } from "../i18n/i18n.ts";
import { projectCommands } from "../model/commands.ts";
import type { Project } from "../model/project.ts";
import { CopyButton, InlineCode, Modal } from "./common.tsx";

/** One script under its heading, with its copy button. */
function Script(props: { title: string; text: string; testId: string }): JSX.Element {
  const t = useT();
  return (
    <>
      <div class="commands-head">
        <h3>{props.title}</h3>
        <CopyButton
          text={props.text}
          label={t("commands.copy", { title: props.title })}
          testId={`copy-${props.testId}`}
        />
      </div>
      <pre
        class="code small commands-text"
        data-testid={props.testId}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that long lines scroll by keyboard too (axe: scrollable-region-focusable)
        tabIndex={0}
      >
        {props.text}
      </pre>
    </>
  );
}

export function CommandsDialog(props: { project: Project; onClose: () => void }): JSX.Element {
  const t = useT();
  const { commands, preset } = projectCommands(props.project);
  return (
    <Modal title={t("commands.title")} onClose={props.onClose} testId="commands-dialog" wide>
      <p class="muted">
        <InlineCode text={t("commands.intro")} />
      </p>
      {commands !== undefined && (
        <Script title={t("commands.initAndAdd")} text={commands} testId="commands-text" />
      )}
      {preset !== undefined && (
        <Script
          title={commands === undefined ? t("commands.preset") : t("commands.presetShorter")}
          text={preset}
          testId="commands-preset"
        />
      )}
      <footer class="modal-actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t("common.close")}
        </button>
      </footer>
    </Modal>
  );
}
