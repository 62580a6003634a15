// Import an existing INI inventory into the inventory editor.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { importIniInventory } from "../../../src/core/ini-import.ts";
import { useT } from "../i18n/i18n.ts";
import { InlineCode, Modal, TextArea } from "./common.tsx";

export function IniImportDialog(props: {
  onClose: () => void;
  onImport: (json: string) => void;
}): JSX.Element {
  const t = useT();
  const [text, setText] = useState("");
  const result = text.trim() === "" ? undefined : importIniInventory(text);
  const hosts = new Set(result?.groups.flatMap((group) => group.members?.map((m) => m.name) ?? []));
  return (
    <Modal title={t("ini.title")} onClose={props.onClose} testId="ini-dialog">
      <p class="muted">
        <InlineCode text={t("ini.intro")} />
      </p>
      <input
        type="file"
        accept=".ini,.cfg,.txt,text/plain"
        aria-label={t("ini.file")}
        onChange={async (event) => {
          const file = (event.currentTarget as HTMLInputElement).files?.[0];
          if (file) setText(await file.text());
        }}
      />
      <TextArea
        value={text}
        rows={12}
        testId="ini-text"
        placeholder={"[web]\nweb-1 cm_host=10.0.0.11\n\n[app:children]\nweb"}
        onChange={setText}
      />
      {result && (
        <div class="import-summary">
          <strong>
            {t("ini.groups", { count: result.groups.length })},{" "}
            {t("ini.hosts", { count: hosts.size })}
          </strong>
          {result.warnings.length > 0 && (
            <ul class="warnings">
              {result.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <footer class="modal-actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t("common.cancel")}
        </button>
        <button
          type="button"
          class="button primary"
          data-testid="ini-import-confirm"
          disabled={!result || result.groups.length === 0}
          onClick={() => result && props.onImport(result.json)}
        >
          {t("ini.replace")}
        </button>
      </footer>
    </Modal>
  );
}
