// Import an existing INI inventory into the inventory editor.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { importIniInventory } from "../../../src/core/ini-import.ts";
import { Modal, TextArea } from "./common.tsx";

export function IniImportDialog(props: {
  onClose: () => void;
  onImport: (json: string) => void;
}): JSX.Element {
  const [text, setText] = useState("");
  const result = text.trim() === "" ? undefined : importIniInventory(text);
  const hosts = new Set(result?.groups.flatMap((group) => group.members?.map((m) => m.name) ?? []));
  return (
    <Modal title="Import an INI inventory" onClose={props.onClose} testId="ini-dialog">
      <p class="muted">
        Paste an inventory file or pick one. Groups, <code>:children</code> and <code>:vars</code>{" "}
        are read; a host listed in several groups is merged into one definition. The import replaces
        the groups of this inventory.
      </p>
      <input
        type="file"
        accept=".ini,.cfg,.txt,text/plain"
        aria-label="INI file"
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
            {result.groups.length} group{result.groups.length === 1 ? "" : "s"}, {hosts.size} host
            {hosts.size === 1 ? "" : "s"}
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
          Cancel
        </button>
        <button
          type="button"
          class="button primary"
          data-testid="ini-import-confirm"
          disabled={!result || result.groups.length === 0}
          onClick={() => result && props.onImport(result.json)}
        >
          Replace groups
        </button>
      </footer>
    </Modal>
  );
}
