// A project opened from its kiln.lock whose components come from item files in the project's
// folder (`kiln add ./items/cache.json`): the lock records their paths relative to that folder,
// and the service reads files from its own, so the dashboard asks where each file is - the item
// file itself or the project's folder - and checks the answer with the service before it opens
// the project. Nothing is guessed: a wrong answer says why under its field.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { errorMessage } from "../../../src/core/errors.ts";
import { inspect } from "../api.ts";
import { useT } from "../i18n/i18n.ts";
import { itemFilePath } from "../model/project-lock.ts";
import { InlineCode, Modal, TextInput } from "./common.tsx";

export function LockItemsDialog(props: {
  /** The lock's name, as the user chose it. */
  lockName: string;
  /** The item files the service could not find, as the lock records them. */
  references: readonly string[];
  onClose: () => void;
  /** Each reference → the path the service found it at. */
  onResolved: (paths: Map<string, string>) => void;
}): JSX.Element {
  const t = useT();
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const resolve = async () => {
    setBusy(true);
    const paths = new Map<string, string>();
    const found: Record<string, string> = {};
    // every answer is checked at once: the service reads the files side by side
    await Promise.all(
      props.references.map(async (reference) => {
        const answer = answers[reference] ?? "";
        if (answer.trim() === "") {
          found[reference] = t("lockItems.missing");
          return;
        }
        const path = itemFilePath(reference, answer);
        try {
          await inspect(path);
          paths.set(reference, path);
        } catch (error) {
          found[reference] = t("lockItems.unreadable", { path, reason: errorMessage(error) });
        }
      }),
    );
    setBusy(false);
    setErrors(found);
    if (Object.keys(found).length === 0) props.onResolved(paths);
  };

  return (
    <Modal title={t("lockItems.title")} onClose={props.onClose} testId="lock-items">
      <p>
        <InlineCode text={t("lockItems.intro", { lock: props.lockName })} />
      </p>
      <form
        class="modal-form"
        onSubmit={(event) => {
          event.preventDefault();
          void resolve();
        }}
      >
        {props.references.map((reference) => (
          <label class="field" key={reference}>
            <span class="field-label">{reference}</span>
            <TextInput
              value={answers[reference] ?? ""}
              mono
              placeholder={t("lockItems.placeholder")}
              testId="item-file-path"
              invalid={errors[reference] !== undefined}
              onChange={(value) => setAnswers({ ...answers, [reference]: value })}
            />
            {errors[reference] && (
              <p class="field-error" role="alert">
                {errors[reference]}
              </p>
            )}
          </label>
        ))}
        <p class="help">{t("lockItems.help")}</p>
        <div class="modal-actions">
          <button type="button" class="button" onClick={props.onClose}>
            {t("common.cancel")}
          </button>
          <button
            type="submit"
            class="button primary"
            data-testid="open-with-items"
            disabled={busy}
          >
            {busy ? t("lockItems.checking") : t("lockItems.open")}
          </button>
        </div>
      </form>
    </Modal>
  );
}
