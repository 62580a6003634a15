// The same project as commands: the `kiln init` and `kiln add` lines that rebuild exactly this
// project - the files, kiln.toml and kiln.lock the zip holds - and, when it is shorter, the
// preset file written by a here-document and `kiln setup`. Values are quoted for a POSIX shell
// (src/core/shell-words.ts), so quotes, spaces, unicode, `$` and JSON reach kiln as the dashboard holds them.
import { DEFAULT_PROJECT_NAME } from "../../../src/core/config.ts";
import { serializePreset } from "../../../src/core/project/preset-manifest.ts";
import { shellOption, shellWord } from "../../../src/core/shell-words.ts";
import { type Project, presetFileName, presetFromProject } from "./project.ts";

/** What the Commands export shows: the init/add lines, and the preset route when shorter. */
export interface ProjectCommands {
  /** `kiln init`, one `kiln add` per component (undefined when they cannot say it all). */
  commands: string | undefined;
  /** The preset file and `kiln setup`; undefined when the commands are shorter. */
  preset: string | undefined;
}

/** The here-document's end marker: no line of a preset's JSON can be it (JSON quotes text). */
const HEREDOC_END = "KILN_PRESET";

/**
 * `kiln init` with the project's settings, then `kiln add` for each component in order (kiln.lock
 * keeps that order), every field as `--set field=value` and every label as `--label`, and last
 * `kiln update --profile ansible` when the project uses those names (init has no such option;
 * update re-renders every component with them and records the profile, as setup would have).
 * Undefined for an empty project with the `ansible` profile: no command line says that, the
 * preset route does.
 */
export function initAndAddCommands(project: Project): string | undefined {
  const settings = project.project;
  const ansible = settings.automationProfile === "ansible";
  if (ansible && project.components.length === 0) return undefined;
  const lines = [
    [
      "kiln init",
      shellOption("--name", settings.name ?? DEFAULT_PROJECT_NAME),
      shellOption("--dir", settings.outputDir),
      shellOption("--namespace", settings.namespace),
    ].join(" "),
  ];
  for (const component of project.components) {
    const parts = [
      "kiln add",
      shellWord(component.reference),
      shellOption("--name", component.name),
    ];
    for (const [field, value] of Object.entries(component.fields)) {
      parts.push(`--set ${shellWord(`${field}=${value}`)}`);
    }
    for (const [key, value] of Object.entries(component.labels)) {
      parts.push(`--label ${shellWord(`${key}=${value}`)}`);
    }
    lines.push(parts.join(" "));
  }
  if (ansible) lines.push("kiln update --profile ansible");
  return `${lines.join("\n")}\n`;
}

/**
 * The preset file written by a here-document, `kiln setup` of it, and the file removed (it is
 * not part of the project). An unnamed project is named `kiln-project`, as its zip is (setup
 * would name it after the folder).
 */
export function presetSetupCommands(project: Project): string {
  const preset = presetFromProject(project);
  const named = {
    ...preset,
    project: { ...preset.project, name: project.project.name ?? DEFAULT_PROJECT_NAME },
  };
  const file = presetFileName(project);
  return [
    `cat > ${shellWord(file)} <<'${HEREDOC_END}'`,
    serializePreset(named).replace(/\n$/, ""),
    HEREDOC_END,
    `kiln setup ${shellWord(`./${file}`)}`,
    `rm -- ${shellWord(file)}`,
    "",
  ].join("\n");
}

/** The Commands export: init/add lines, and the preset route when it is shorter. */
export function projectCommands(project: Project): ProjectCommands {
  const commands = initAndAddCommands(project);
  const preset = presetSetupCommands(project);
  return {
    commands,
    preset: commands === undefined || preset.length < commands.length ? preset : undefined,
  };
}
