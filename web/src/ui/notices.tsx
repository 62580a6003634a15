// Messages that stay until they no longer hold (unlike toasts, which go after a few seconds):
// the zip that was refused and why, and a project this browser no longer saves. Both are alerts
// (announced once by screen readers when they appear) at the top of the workspace.
import type { JSX } from "preact";
import type { SaveState } from "../hooks/use-persistent-project.ts";
import type { RefusedFile } from "../model/files.ts";
import { IconButton, InlineCode } from "./common.tsx";

/** Why the last "Download zip" gave no zip: files run as code, or a path rule's message. */
export type ZipProblem = { refused: readonly RefusedFile[] } | { message: string };

export function ZipRefusedNotice(props: {
  problem: ZipProblem;
  onDismiss: () => void;
}): JSX.Element {
  const { problem } = props;
  return (
    <section
      class="notice error"
      role="alert"
      aria-labelledby="zip-refused-title"
      data-testid="zip-refused"
    >
      <header class="notice-head">
        <h2 id="zip-refused-title">The zip was not downloaded</h2>
        <IconButton icon="×" title="Dismiss" onClick={props.onDismiss} />
      </header>
      {"refused" in problem ? (
        <>
          <p>
            {problem.refused.length === 1
              ? "It would hold a file that another tool runs or loads as code"
              : `It would hold ${problem.refused.length} files that other tools run or load as code`}
            , without asking, when the folder is opened, entered, built or pushed.{" "}
            <code>kiln setup</code> refuses {problem.refused.length === 1 ? "it" : "them"} unless
            you pass <code>--allow-exec-paths</code>; a download cannot ask, so nothing was
            downloaded:
          </p>
          <ul class="notice-list">
            {problem.refused.map((file) => (
              <li key={file.path} data-testid="zip-refused-file">
                <code>{file.path}</code>: {file.runBy}
              </li>
            ))}
          </ul>
          <p>
            Remove or change the components that write{" "}
            {problem.refused.length === 1 ? "it" : "them"}. If you trust them, download the preset,
            read those files with <code>kiln render</code>, and run{" "}
            <code>kiln setup &lt;preset&gt; --allow-exec-paths</code>.
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
  return (
    <section
      class="notice warning"
      role="alert"
      aria-labelledby="not-saved-title"
      data-testid="not-saved"
    >
      <header class="notice-head">
        <h2 id="not-saved-title">This project is not saved in this browser any more</h2>
      </header>
      <p>
        {props.state === "too-big"
          ? "It has grown larger than this browser's storage for the dashboard allows, so your changes are kept only while this page stays open: reloading it brings back the last version that fit, without the changes since."
          : "This browser does not let the dashboard store it, so it is kept only while this page stays open."}
      </p>
      <p>
        To keep it, use <strong>Download preset</strong> (open it here again, or run{" "}
        <code>kiln setup</code> on it) or <strong>Download zip</strong>.
      </p>
    </section>
  );
}
