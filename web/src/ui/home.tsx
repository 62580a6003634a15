// Home: start from a preset template, start blank, open a `.preset.json` or a project's
// `kiln.lock` (with its `kiln.toml`, if given too), or continue.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { ConfigView, PresetSummary } from "../api.ts";
import { useT } from "../i18n/i18n.ts";
import type { Project } from "../model/project.ts";
import { InlineCode, TextInput } from "./common.tsx";

export function Home(props: {
  presets: PresetSummary[] | undefined;
  presetsError: string | undefined;
  config: ConfigView | undefined;
  current: Project | undefined;
  busy: string | undefined;
  error: string | undefined;
  onContinue: () => void;
  onOpenPreset: (name: string) => void;
  onBlank: (settings: { name: string; namespace: string; outputDir: string }) => void;
  /** The files the user chose or dropped (a preset; or kiln.lock, perhaps with kiln.toml). */
  onOpenFiles: (files: { name: string; text: string }[]) => void;
}): JSX.Element {
  const t = useT();
  const config = props.config;
  const [name, setName] = useState("");
  const [namespace, setNamespace] = useState("");
  const [outputDir, setOutputDir] = useState("");
  const [dragging, setDragging] = useState(false);
  const readFiles = async (list: FileList | null | undefined) => {
    const files = [...(list ?? [])].slice(0, 2);
    if (files.length === 0) return;
    props.onOpenFiles(
      await Promise.all(files.map(async (file) => ({ name: file.name, text: await file.text() }))),
    );
  };
  return (
    <main class="home" data-testid="home">
      <section class="hero">
        <h1>{t("home.title")}</h1>
        <p>
          <InlineCode text={t("home.intro")} />
        </p>
      </section>
      {props.error && (
        <div class="render-error" role="alert" data-testid="home-error">
          {props.error}
        </div>
      )}
      {props.current && (
        <button
          type="button"
          class="continue card"
          onClick={props.onContinue}
          data-testid="continue"
        >
          <span>
            <strong>
              {t("home.continue", {
                name: props.current.project.name ?? t("home.unnamedProject"),
              })}
            </strong>
            <span class="muted">
              {" "}
              · {t("app.componentCount", { count: props.current.components.length })} ·{" "}
              {t("home.savedHere")}
            </span>
          </span>
          <span class="arrow">→</span>
        </button>
      )}
      <h2 class="section-title">{t("home.fromTemplate")}</h2>
      {props.presetsError && (
        <p class="render-error">{t("home.templatesFailed", { reason: props.presetsError })}</p>
      )}
      {!props.presets && !props.presetsError && <p class="muted">{t("home.loadingTemplates")}</p>}
      <div class="preset-grid">
        {props.presets?.map((preset) => (
          <button
            type="button"
            key={preset.name}
            class="preset-card"
            data-testid={`preset-${preset.name}`}
            disabled={props.busy !== undefined}
            onClick={() => props.onOpenPreset(preset.name)}
          >
            <span class="preset-title">{preset.title || preset.name}</span>
            <span class="preset-desc">{preset.description}</span>
            <span class="preset-meta">
              <code>{preset.name}</code>
              <span>
                {props.busy === preset.name
                  ? t("home.opening")
                  : t("app.componentCount", { count: preset.componentCount })}
              </span>
            </span>
          </button>
        ))}
      </div>
      <div class="home-split">
        <form
          class="card blank"
          data-testid="blank-form"
          onSubmit={(event) => {
            event.preventDefault();
            props.onBlank({
              name: name.trim() || config?.defaultProjectName || "kiln-project",
              namespace: namespace.trim() || config?.defaultNamespace || "default",
              outputDir: outputDir.trim() || config?.defaultOutputDir || "k8s",
            });
          }}
        >
          <h2>{t("home.blank")}</h2>
          <label class="field">
            <span class="field-label">{t("home.projectName")}</span>
            <TextInput
              value={name}
              placeholder={config?.defaultProjectName ?? ""}
              onChange={setName}
              testId="blank-name"
            />
          </label>
          <div class="grid-2">
            <label class="field">
              <span class="field-label">{t("settings.namespace")}</span>
              <TextInput
                value={namespace}
                mono
                placeholder={config?.defaultNamespace ?? ""}
                onChange={setNamespace}
              />
            </label>
            <label class="field">
              <span class="field-label">{t("settings.outputDir")}</span>
              <TextInput
                value={outputDir}
                mono
                placeholder={config?.defaultOutputDir ?? ""}
                onChange={setOutputDir}
              />
            </label>
          </div>
          <button type="submit" class="button primary">
            {t("home.create")}
          </button>
        </form>
        <label
          class={`card dropzone${dragging ? " dragging" : ""}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(event) => {
            event.preventDefault();
            setDragging(false);
            void readFiles(event.dataTransfer?.files);
          }}
        >
          <h2>{t("home.openFile")}</h2>
          <p class="muted">
            <InlineCode text={t("home.openFileHint")} />
          </p>
          <span class="button">{t("home.chooseFile")}</span>
          <input
            type="file"
            accept=".json,application/json,.lock,.toml"
            multiple
            class="visually-hidden"
            data-testid="open-file"
            onChange={(event) => void readFiles((event.currentTarget as HTMLInputElement).files)}
          />
        </label>
      </div>
    </main>
  );
}
