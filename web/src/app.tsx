// The dashboard: home (templates, blank, open file) and the builder (components by stage, the
// form, the live preview, checks, architecture), downloads, persistence and undo.
import { strToU8, zipSync } from "fflate";
import type { JSX } from "preact";
import { useMemo, useState } from "preact/hooks";
import { errorMessage, isKilnError } from "../../src/core/errors.ts";
import { checkProject } from "../../src/core/project/checks/check-project.ts";
import type { ComponentToAdd } from "../../src/core/project/checks/rule.ts";
import { type CheckComponent, projectFacts } from "../../src/core/project/facts.ts";
import { withRenderedPaths } from "../../src/core/project/render-components.ts";
import { api, inspect, lockSourcesFromApi, renderThroughApi } from "./api.ts";
import { useCatalogue } from "./hooks/use-catalogue.ts";
import { useItems } from "./hooks/use-items.ts";
import { usePersistentProject } from "./hooks/use-persistent-project.ts";
import { useRenders } from "./hooks/use-renders.ts";
import { useToasts } from "./hooks/use-toasts.ts";
import { LanguageContext, translate, useLanguageState, useT } from "./i18n/i18n.ts";
import { findConflicts } from "./model/conflicts.ts";
import { renderProjectFiles, ZipRefused, zipFileName } from "./model/files.ts";
import {
  blankProject,
  downloadName,
  newId,
  type Project,
  type ProjectComponent,
  presetFileName,
  presetText,
  projectFromPreset,
  STAGES,
  type StageId,
  stageOf,
} from "./model/project.ts";
import { isLockFile, presetFromLockFiles, unreadableItemFiles } from "./model/project-lock.ts";
import { AddDialog } from "./ui/add-dialog.tsx";
import { ChecksView } from "./ui/checks-view.tsx";
import { CommandsDialog } from "./ui/commands-dialog.tsx";
import { download, IconButton, TextInput, Toasts } from "./ui/common.tsx";
import { ComponentForm, formContext } from "./ui/component-form.tsx";
import { GraphView } from "./ui/graph-view.tsx";
import { Home } from "./ui/home.tsx";
import { IniImportDialog } from "./ui/ini-dialog.tsx";
import { LockItemsDialog } from "./ui/lock-items-dialog.tsx";
import { NotSavedNotice, type ZipProblem, ZipRefusedNotice } from "./ui/notices.tsx";
import { type Pane, PaneTabs } from "./ui/pane-tabs.tsx";
import { Preview } from "./ui/preview.tsx";
import { TopBar } from "./ui/top-bar.tsx";
import { Tour } from "./ui/tour.tsx";
import { useItemMeta } from "./ui/use-item-meta.ts";

type View = "build" | "checks" | "graph";

/**
 * The dashboard and, once per browser, the first-visit guide beside it (outside the screens, so
 * it stays open from the home page into the builder), in the language chosen.
 */
export function App(): JSX.Element {
  const language = useLanguageState();
  return (
    <LanguageContext.Provider value={language}>
      <Dashboard />
      <Tour />
    </LanguageContext.Provider>
  );
}

/** A component as messages name it: its reference and its name in quotes of the language. */
function componentWords(component: { reference: string; name: string }): string {
  return translate("app.componentWords", { reference: component.reference, name: component.name });
}

function Dashboard(): JSX.Element {
  const t = useT();
  const { restored, project, setProject, selected, setSelected, saveState } =
    usePersistentProject();
  const { registry, registryError, presets, presetsError, config } = useCatalogue();
  const { renders, pending, reset: resetRenders } = useRenders(project);
  const { toasts, toast, dismiss } = useToasts();
  const [screen, setScreen] = useState<"home" | "builder">(restored ? "builder" : "home");
  const [view, setView] = useState<View>("build");
  // the panel a narrow screen shows (the style sheet shows every column on a wide one)
  const [pane, setPane] = useState<Pane>("form");
  const [homeBusy, setHomeBusy] = useState<string>();
  const [homeError, setHomeError] = useState<string>();
  // a lock being opened whose item files the service cannot find: where they are is asked
  const [lockQuestion, setLockQuestion] = useState<{
    lock: { name: string; text: string };
    projectFile: string | undefined;
    references: string[];
  }>();
  const [adding, setAdding] = useState<StageId | undefined>();
  // the component and field an INI import goes into
  const [iniFor, setIniFor] = useState<{ id: string; field: string } | undefined>();
  const [showCommands, setShowCommands] = useState(false);
  const { itemOf, errorOf } = useItems(project, registry);
  const [downloading, setDownloading] = useState(false);
  // why the last "Download zip" gave no zip, until the next one or until dismissed
  const [zipProblem, setZipProblem] = useState<ZipProblem>();
  // what each component is (stage, editors, facts): catalogue data, not code
  const itemMeta = useItemMeta(project?.components.map((component) => component.reference) ?? []);

  const checkComponents: CheckComponent[] = useMemo(
    () =>
      (project?.components ?? []).map((component) => ({
        ...withRenderedPaths(component, renders[component.id]),
        meta: itemMeta.metaOf(component.reference),
      })),
    [project, renders, itemMeta],
  );
  const findings = useMemo(
    () =>
      project
        ? checkProject({
            namespace: project.project.namespace,
            components: checkComponents,
            catalogue: itemMeta.catalogue,
          })
        : [],
    [project, checkComponents, itemMeta],
  );

  const update = (change: (project: Project) => Project) =>
    setProject((current) => current && change(current));

  const open = (next: Project) => {
    setProject(next);
    setSelected(next.components[0]?.id);
    resetRenders();
    setView("build");
    setScreen("builder");
    setHomeError(undefined);
  };

  const addComponents = (list: ComponentToAdd[] | Omit<ProjectComponent, "id">[]) => {
    const added = list.map((component) => ({ ...component, id: newId() }));
    update((current) => ({ ...current, components: [...current.components, ...added] }));
    if (added[0]) setSelected(added[0].id);
    return added;
  };

  const remove = (id: string) => {
    if (!project) return;
    const index = project.components.findIndex((component) => component.id === id);
    const component = project.components[index];
    if (!component) return;
    update((current) => ({
      ...current,
      components: current.components.filter((c) => c.id !== id),
    }));
    const neighbour = project.components[index + 1] ?? project.components[index - 1];
    setSelected(neighbour?.id);
    toast(t("app.removed", { component: componentWords(component) }), "info", {
      label: t("app.undo"),
      run: () => {
        update((current) => {
          const components = [...current.components];
          components.splice(Math.min(index, components.length), 0, component);
          return { ...current, components };
        });
        setSelected(component.id);
      },
    });
  };

  const downloadZip = async () => {
    if (!project) return;
    setDownloading(true);
    setZipProblem(undefined);
    try {
      const files = await renderProjectFiles(project, renderThroughApi, lockSourcesFromApi);
      const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
      const mtime = new Date(2000, 0, 1);
      for (const file of files) entries[file.path] = [strToU8(file.content), { mtime }];
      download(zipFileName(project), zipSync(entries, { level: 6 }) as BlobPart, "application/zip");
    } catch (error) {
      // a refusal by setup's rules stays on screen with every file named; a component that
      // does not render (or a service that does not answer) is a passing message
      if (error instanceof ZipRefused) setZipProblem({ refused: error.files });
      else if (isKilnError(error)) setZipProblem({ message: error.message });
      else toast(t("app.zipFailed", { reason: errorMessage(error) }), "error");
    } finally {
      setDownloading(false);
    }
  };

  if (screen === "home" || !project) {
    return (
      <>
        <TopBar onHome={undefined} />
        <Home
          presets={presets}
          presetsError={presetsError}
          config={config}
          current={project}
          busy={homeBusy}
          error={homeError}
          onContinue={() => setScreen("builder")}
          onOpenPreset={async (name) => {
            setHomeBusy(name);
            try {
              open(projectFromPreset(await api.preset(name)));
            } catch (error) {
              setHomeError(t("app.presetFailed", { name, reason: errorMessage(error) }));
            } finally {
              setHomeBusy(undefined);
            }
          }}
          onBlank={(settings) => open(blankProject(settings))}
          onOpenFiles={async (files) => {
            const lock = files.find((file) => isLockFile(file.name));
            const [first] = files;
            if (!lock && first) {
              try {
                // settings the file leaves out take the core's defaults (what /api/config says)
                open(projectFromPreset(first.text));
              } catch (error) {
                setHomeError(
                  t("app.notAPreset", { file: first.name, reason: errorMessage(error) }),
                );
              }
              return;
            }
            if (!lock) return;
            setHomeBusy(lock.name);
            try {
              const projectFile = files.find((file) => file.name.endsWith(".toml"))?.text;
              const references = await unreadableItemFiles(lock.text, inspect);
              if (references.length > 0) {
                setLockQuestion({ lock, projectFile, references });
                return;
              }
              const preset = await presetFromLockFiles(
                { lock: lock.text, projectFile },
                renderThroughApi,
              );
              open(projectFromPreset(preset));
            } catch (error) {
              setHomeError(t("app.lockFailed", { file: lock.name, reason: errorMessage(error) }));
            } finally {
              setHomeBusy(undefined);
            }
          }}
        />
        {lockQuestion && (
          <LockItemsDialog
            lockName={lockQuestion.lock.name}
            references={lockQuestion.references}
            onClose={() => setLockQuestion(undefined)}
            onResolved={async (paths) => {
              const { lock, projectFile } = lockQuestion;
              setLockQuestion(undefined);
              setHomeBusy(lock.name);
              try {
                const preset = await presetFromLockFiles(
                  { lock: lock.text, projectFile },
                  renderThroughApi,
                  paths,
                );
                open(projectFromPreset(preset));
              } catch (error) {
                setHomeError(t("app.lockFailed", { file: lock.name, reason: errorMessage(error) }));
              } finally {
                setHomeBusy(undefined);
              }
            }}
          />
        )}
        <Toasts toasts={toasts} dismiss={dismiss} />
      </>
    );
  }

  const index = project.components.findIndex((component) => component.id === selected);
  const component = project.components[index];
  const others = project.components.map((c) => {
    const result = renders[c.id];
    return result?.ok ? result.files : undefined;
  });
  const result = component ? renders[component.id] : undefined;
  const editConflicts = result?.ok && index >= 0 ? findConflicts(result.files, others, index) : [];
  const errorsOf = (i: number) => findings.filter((finding) => finding.components[0]?.index === i);
  const counts = {
    errors: findings.filter((f) => f.severity === "error").length,
    warnings: findings.filter((f) => f.severity === "warning").length,
  };
  const context = formContext(
    projectFacts({ namespace: project.project.namespace, components: checkComponents }),
    (result?.ok && result.files[0]?.path) || "",
  );
  const settings = project.project;

  return (
    <>
      <TopBar
        onHome={() => setScreen("home")}
        actions={
          <>
            <button
              type="button"
              class="button"
              data-testid="show-commands"
              onClick={() => setShowCommands(true)}
            >
              {t("app.commands")}
            </button>
            <button
              type="button"
              class="button"
              data-testid="download-preset"
              onClick={() =>
                download(presetFileName(project), presetText(project), "application/json")
              }
            >
              {t("app.downloadPreset")}
            </button>
            <button
              type="button"
              class="button primary"
              data-testid="download-zip"
              disabled={downloading || project.components.length === 0}
              onClick={downloadZip}
            >
              {downloading ? t("app.building") : t("app.downloadZip")}
            </button>
          </>
        }
      />
      <div class="builder" data-testid="builder" data-pane={pane}>
        <PaneTabs
          pane={pane}
          onChoose={(next) => {
            setPane(next);
            // the preview belongs to the form: choosing it comes back to editing
            if (next === "preview") setView("build");
          }}
        />
        <aside class="sidebar">
          <div class="project-settings card">
            <label class="field compact">
              <span class="field-label">{t("settings.project")}</span>
              <TextInput
                value={settings.name ?? ""}
                placeholder={config?.defaultProjectName ?? "kiln-project"}
                testId="project-name"
                onChange={(name) =>
                  update((p) => ({
                    ...p,
                    project: { ...p.project, name: name === "" ? null : name },
                  }))
                }
              />
            </label>
            <div class="grid-2 settings-pair">
              <label class="field compact">
                <span class="field-label">{t("settings.namespace")}</span>
                <TextInput
                  value={settings.namespace}
                  mono
                  onChange={(namespace) =>
                    update((p) => ({ ...p, project: { ...p.project, namespace } }))
                  }
                />
              </label>
              <label class="field compact">
                <span class="field-label">{t("settings.outputDir")}</span>
                <TextInput
                  value={settings.outputDir}
                  mono
                  onChange={(outputDir) =>
                    update((p) => ({ ...p, project: { ...p.project, outputDir } }))
                  }
                />
              </label>
            </div>
            <label class="field compact">
              <span class="field-label">{t("settings.automationNames")}</span>
              <select
                class="input"
                data-testid="automation-profile"
                value={settings.automationProfile ?? "cm"}
                onChange={(event) => {
                  const value = (event.target as HTMLSelectElement).value;
                  const automationProfile = value === "ansible" ? "ansible" : "cm";
                  update((p) => ({ ...p, project: { ...p.project, automationProfile } }));
                }}
              >
                <option value="cm">cm_host, cm.cfg</option>
                <option value="ansible">ansible_host, ansible.cfg</option>
              </select>
              <span class="help">
                {settings.automationProfile === "ansible"
                  ? t("settings.ansibleNames")
                  : t("settings.cmNames")}
              </span>
            </label>
          </div>
          <nav class="stages-nav" aria-label={t("app.components")}>
            {STAGES.map((stage) => {
              const members = project.components
                .map((c, i) => ({ c, i }))
                .filter(({ c }) => stageOf(itemMeta.metaOf(c.reference)) === stage.id);
              if (stage.id === "other" && members.length === 0) {
                return (
                  <button
                    key={stage.id}
                    type="button"
                    class="link-button add-url"
                    onClick={() => setAdding("other")}
                  >
                    + {t("app.addFromUrl")}
                  </button>
                );
              }
              return (
                <section key={stage.id} class="stage" data-testid={`stage-${stage.id}`}>
                  <header class="stage-head">
                    <div>
                      <h3>{t(stage.title)}</h3>
                      <span class="muted small">{t(stage.hint)}</span>
                    </div>
                    <IconButton
                      icon="+"
                      title={t("app.addTo", { stage: t(stage.title) })}
                      testId={`add-${stage.id}`}
                      onClick={() => setAdding(stage.id)}
                    />
                  </header>
                  {members.length === 0 && (
                    <p class="muted small stage-empty">{t("app.nothingYet")}</p>
                  )}
                  <ul>
                    {members.map(({ c, i }) => {
                      const own = errorsOf(i);
                      const severity = own.some((f) => f.severity === "error")
                        ? "error"
                        : own.length > 0
                          ? "warning"
                          : undefined;
                      return (
                        <li key={c.id}>
                          <button
                            type="button"
                            class={`component-item${c.id === selected && view === "build" ? " active" : ""}`}
                            data-testid="component-item"
                            data-name={c.name}
                            onClick={() => {
                              setSelected(c.id);
                              setView("build");
                              setPane("form");
                            }}
                          >
                            <span class="component-name">{c.name}</span>
                            <span class="component-ref mono">{c.reference.split("/").pop()}</span>
                            {severity && (
                              <span
                                class={`badge ${severity}`}
                                title={t("app.findings", { count: own.length })}
                              >
                                {own.length}
                              </span>
                            )}
                          </button>
                        </li>
                      );
                    })}
                  </ul>
                </section>
              );
            })}
          </nav>
        </aside>
        <main class="workspace">
          <div class="tabs" role="tablist">
            <button
              type="button"
              role="tab"
              aria-selected={view === "build"}
              class={view === "build" ? "active" : ""}
              onClick={() => setView("build")}
            >
              {t("app.tabEdit")}
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={view === "checks"}
              class={view === "checks" ? "active" : ""}
              data-testid="tab-checks"
              onClick={() => setView("checks")}
            >
              {t("app.tabChecks")}
              {counts.errors > 0 && <span class="badge error">{counts.errors}</span>}
              {counts.warnings > 0 && <span class="badge warning">{counts.warnings}</span>}
              {findings.length === 0 && <span class="badge ok">✓</span>}
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={view === "graph"}
              class={view === "graph" ? "active" : ""}
              data-testid="tab-graph"
              onClick={() => setView("graph")}
            >
              {t("app.tabArchitecture")}
            </button>
            <span class="tabs-spacer" />
            <span class="muted small">
              {t("app.componentCount", { count: project.components.length })} · {settings.outputDir}
              /
            </span>
          </div>
          {zipProblem && (
            <ZipRefusedNotice problem={zipProblem} onDismiss={() => setZipProblem(undefined)} />
          )}
          {saveState !== "saved" && <NotSavedNotice state={saveState} />}
          {registryError && (
            <p class="render-error">{t("app.registryFailed", { reason: registryError })}</p>
          )}
          {view === "build" && component && (
            <div class="edit-split">
              <ComponentForm
                key={component.id}
                component={component}
                item={itemOf(component.reference)}
                meta={itemMeta.metaOf(component.reference)}
                itemError={errorOf(component.reference)}
                problem={result && !result.ok ? result.field : undefined}
                context={context}
                onChange={(next) =>
                  update((p) => ({
                    ...p,
                    components: p.components.map((c) => (c.id === next.id ? next : c)),
                  }))
                }
                onRemove={() => remove(component.id)}
                onImportIni={(field) => setIniFor({ id: component.id, field })}
              />
              <Preview
                result={result}
                pending={pending}
                outputDir={settings.outputDir}
                conflicts={editConflicts}
                conflictName={(i) => {
                  const other = project.components[i];
                  return other ? componentWords(other) : t("app.anotherComponent");
                }}
              />
            </div>
          )}
          {view === "build" && !component && (
            <div class="empty-state">
              <h2>
                {project.components.length === 0 ? t("app.emptyProject") : t("app.pickComponent")}
              </h2>
              <p class="muted">
                {project.components.length === 0
                  ? t("app.emptyProjectHint")
                  : t("app.pickComponentHint")}
              </p>
              <div class="empty-actions">
                {STAGES.slice(0, 4).map((stage) => (
                  <button
                    key={stage.id}
                    type="button"
                    class="button"
                    onClick={() => setAdding(stage.id)}
                  >
                    + {t(stage.title)}
                  </button>
                ))}
              </div>
            </div>
          )}
          {view === "checks" && (
            <ChecksView
              findings={findings}
              pending={pending}
              onSelect={(i) => {
                setSelected(project.components[i]?.id);
                setView("build");
              }}
              onFix={(add) => {
                const added = addComponents(add);
                toast(t("app.added", { components: added.map(componentWords).join(", ") }));
              }}
            />
          )}
          {view === "graph" && (
            <GraphView
              components={checkComponents}
              namespace={settings.namespace}
              title={settings.name ?? config?.defaultProjectName ?? "kiln-project"}
              fileName={downloadName(project, ".drawio")}
              onSelect={(i) => {
                setSelected(project.components[i]?.id);
                setView("build");
              }}
            />
          )}
        </main>
      </div>
      {adding && (
        <AddDialog
          stage={adding}
          registry={registry}
          metaOf={itemMeta.metaOf}
          project={project}
          renders={project.components.map((c) => renders[c.id])}
          onClose={() => setAdding(undefined)}
          onAdd={(next) => {
            addComponents([next]);
            setAdding(undefined);
            setView("build");
            setPane("form");
          }}
        />
      )}
      {showCommands && <CommandsDialog project={project} onClose={() => setShowCommands(false)} />}
      {iniFor && (
        <IniImportDialog
          onClose={() => setIniFor(undefined)}
          onImport={(json) => {
            update((p) => ({
              ...p,
              components: p.components.map((c) =>
                c.id === iniFor.id ? { ...c, fields: { ...c.fields, [iniFor.field]: json } } : c,
              ),
            }));
            setIniFor(undefined);
            toast(t("app.inventoryImported"));
          }}
        />
      )}
      <Toasts toasts={toasts} dismiss={dismiss} />
    </>
  );
}
