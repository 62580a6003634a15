// What `kiln diff <preset>` compares: the files `kiln setup <preset>` would write here - the
// preset's files under its output folder, and kiln.toml - with the files on disk. Two ways only:
// a preset records no base, so nothing is merged (that is `kiln update`'s job for a project
// kiln vendored). kiln.lock is left out: it is kiln's record of a run, not a file of the preset.
// Files under the output folder that the preset does not make are listed, and are no difference:
// a project grows beyond the preset it started from. A file on disk is read only when its path
// passes the rules of a write (project-files.ts): a link in the tree that leads out is refused.
import { LOCK_FILE, PROJECT_FILE } from "../core/config.ts";
import { layoutEntries, layoutProject, pathInside } from "../core/project/layout.ts";
import { presetConfig } from "../core/project/preset-manifest.ts";
import { ProjectFiles } from "../node/project-files.ts";
import { defaultProjectName } from "./commands/init.ts";
import { filesBelow } from "./lifecycle.ts";
import { presetLabel, renderWholePreset } from "./preset-run.ts";

export interface PresetFileDiff {
  /** The path from the project root. */
  path: string;
  /** The component that renders it; undefined for kiln.toml. */
  component?: string | undefined;
  name?: string | undefined;
  /** On disk now; undefined when missing or refused. */
  before: string | undefined;
  /** Why kiln did not read the file on disk (the rules of a write); undefined when it did. */
  refused?: string | undefined;
  /** What `kiln setup <preset>` writes. */
  after: string;
}

export interface PresetDiff {
  /** `preset "k8s-web-app"` or the reference as typed, for messages. */
  label: string;
  /** Every file the preset writes, in setup's order. */
  files: PresetFileDiff[];
  /** Files under the output folder the preset does not write (kiln.lock aside). */
  notInPreset: string[];
}

export async function planPresetDiff(reference: string, cwd: string): Promise<PresetDiff> {
  const { preset, files, components } = await renderWholePreset(reference, cwd);
  const layout = layoutProject(presetConfig(preset, defaultProjectName(cwd)), files);
  const owners = new Map<string, { component: string; name: string }>();
  for (const { component, output } of components) {
    for (const file of output.files) {
      owners.set(pathInside(layout.outputDir, file.path), {
        component: component.reference,
        name: component.name,
      });
    }
  }
  const disk = new ProjectFiles(cwd);
  const written = layoutEntries(layout);
  const paths = new Set(written.map((file) => file.path));
  return {
    label: presetLabel(preset, reference),
    files: written.map((file) => {
      const refused = disk.refusal(file.path);
      return {
        path: file.path,
        ...owners.get(file.path),
        before: refused === undefined ? disk.read(file.path) : undefined,
        after: file.content,
        ...(refused === undefined ? {} : { refused }),
      };
    }),
    notInPreset: filesBelow(cwd, layout.outputDir).filter(
      (path) => !paths.has(path) && path !== PROJECT_FILE && path !== LOCK_FILE,
    ),
  };
}
