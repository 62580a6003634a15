// Messages that stay until they no longer hold (unlike toasts, which go after a few seconds):
// the zip that was refused and why, and a project this browser no longer saves. Both are alerts
// (announced once by screen readers when they appear) at the top of the workspace.
import type { JSX } from "preact";
import type { SaveState } from "../hooks/use-persistent-project.ts";
import { translateCoreWords, useT } from "../i18n/i18n.ts";
import { execPathKey } from "../i18n/keys.ts";
import type { RefusedFile } from "../model/files.ts";
import { IconButton, InlineCode } from "./common.tsx";

/** Why the last "Download zip" gave no zip: files run as code, or a path rule's message. */
export type ZipProblem = { refused: readonly RefusedFile[] } | { message: string };

export function ZipRefusedNotice(props: {
  problem: ZipProblem;
  onDismiss: () => void;
}): JSX.Element {
  const t = useT();
  const { problem } = props;
  return (
    <section
      class="notice error"
      role="alert"
      aria-labelledby="zip-refused-title"
      data-testid="zip-refused"
    >
      <header class="notice-head">
        <h2 id="zip-refused-title">{t("notices.zipRefusedTitle")}</h2>
        <IconButton icon="×" title={t("common.dismiss")} onClick={props.onDismiss} />
      </header>
      {"refused" in problem ? (
        <>
          <p>
            <InlineCode text={t("notices.zipRefused", { count: problem.refused.length })} />
          </p>
          <ul class="notice-list">
            {problem.refused.map((file) => (
              <li key={file.path} data-testid="zip-refused-file">
                <InlineCode
                  text={t("notices.zipRefusedFile", {
                    path: file.path,
                    runBy: translateCoreWords(execPathKey(file.pattern), file.runBy),
                  })}
                />
              </li>
            ))}
          </ul>
          <p>
            <InlineCode text={t("notices.zipRefusedWhatToDo", { count: problem.refused.length })} />
          </p>
        </>
      ) : (
        <p>
          <InlineCode text={problem.message} />
        </p>
      )}
    </section>
  );
}

/** Shown while the project cannot be saved in this browser (see usePersistentProject). */
export function NotSavedNotice(props: { state: Exclude<SaveState, "saved"> }): JSX.Element {
  const t = useT();
  return (
    <section
      class="notice warning"
      role="alert"
      aria-labelledby="not-saved-title"
      data-testid="not-saved"
    >
      <header class="notice-head">
        <h2 id="not-saved-title">{t("notices.notSavedTitle")}</h2>
      </header>
      <p>
        {props.state === "too-big" ? t("notices.notSavedTooBig") : t("notices.notSavedRefused")}
      </p>
      <p>
        <InlineCode text={t("notices.notSavedWhatToDo")} />
      </p>
    </section>
  );
}
