// The real-tool checks `kiln registry validate` runs on an item's rendered files: the checks
// kiln's own catalogue passes, as far as this installation has the tools.
//
// - YAML (`.yaml`, `.yml`): every document parses with the `yaml` package (always). The strict
//   Kubernetes schemas kiln's own tests use are not part of the package (tens of megabytes), so
//   a manifest is said to be checked as YAML only.
// - Terraform (`.tf`): `terraform fmt -` (Terraform's own parser, reading stdin: no init, no
//   network) where `terraform` is on the PATH.
// - The automation tool, where `ansible-inventory` and `ansible-playbook` are on the PATH:
//   an `.ini` file through `ansible-inventory --list` (an inventory it cannot parse is an error,
//   not its usual warning), a YAML file that is a list of plays through `ansible-playbook
//   --syntax-check`. The roles and imported playbooks a play names that the item does not write
//   get empty stand-ins, so one item is checked on its own as the catalogue's tests check theirs.
//
// A stranger's rendered files never run as code here: only the inventories and playbooks are
// written to a private temporary folder (never a `.py` file, so no plugin or module beside a
// playbook loads; never an `ansible.cfg`), the tools start there with a configuration file of
// kiln's own (empty: an `ansible.cfg` of the working folder or the environment is not read), the
// inventory plugins are only `host_list`, `ini` and `yaml` (never `script`, which runs an
// executable file), and the files are written without the executable bit. Syntax checks parse;
// they run nothing.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";

/** A rendered file, as the render gave it. */
export interface RenderedFile {
  path: string;
  content: string;
}

/** One problem a tool found, in one file. */
export interface ToolProblem {
  path: string;
  problem: string;
}

/** The tools a check needs, and the line that says so when they are missing. */
export const TOOL_NOTES = {
  terraform:
    "Terraform's parser: terraform is not installed - the .tf files were not parsed by Terraform (install it to check them)",
  kubernetes:
    "Kubernetes schemas: kiln does not ship them - the manifests were parsed as YAML only (check them with a schema validator such as `kubeconform -strict` on `kiln render` output)",
  ansible:
    "the automation tool's checks: ansible-inventory and ansible-playbook are not installed - inventories and playbooks were checked as YAML and INI text only (install ansible-core to check them)",
} as const;
export type ToolName = keyof typeof TOOL_NOTES;

/** What one item's checks found, and which tools they would have used but could not. */
export interface ToolCheckResult {
  problems: ToolProblem[];
  /** Tools a file needed that are not installed here. */
  missing: Set<ToolName>;
  /** The checks that ran, for the item's line (`YAML`, `terraform fmt`, ...). */
  ran: Set<string>;
}

/** Longest a tool may run on one item's files before its check fails. */
const TOOL_TIMEOUT_MS = 120_000;

const onPath = new Map<string, boolean>();

/** Whether `command` is an executable on the PATH (looked up once per process). */
function commandOnPath(command: string): boolean {
  let found = onPath.get(command);
  if (found === undefined) {
    found = (process.env.PATH ?? "")
      .split(delimiter)
      .some((dir) => dir !== "" && existsSync(join(dir, command)));
    onPath.set(command, found);
  }
  return found;
}

/** The first line of a tool's diagnostics, trimmed, for the problem line. */
function firstLines(text: string, count = 3): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, count)
    .join(" ");
}

function isYaml(path: string): boolean {
  return path.endsWith(".yaml") || path.endsWith(".yml");
}

/** Every YAML document of `content`, or the parser's first error. */
function yamlProblem(content: string): string | undefined {
  for (const document of parseAllDocuments(content)) {
    const [error] = document.errors;
    if (error !== undefined) return `YAML does not parse: ${firstLines(error.message, 1)}`;
  }
  return undefined;
}

/** The plays of a YAML file that is a playbook (a list with a play in it), or undefined. */
function playsOf(content: string): Record<string, unknown>[] | undefined {
  const documents = parseAllDocuments(content);
  const first = Array.isArray(documents) ? documents[0] : undefined;
  if (first === undefined || first.errors.length > 0) return undefined;
  const value: unknown = first.toJS();
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const isPlay = (entry: unknown) =>
    typeof entry === "object" &&
    entry !== null &&
    ["hosts", "import_playbook", "ansible.builtin.import_playbook"].some((key) => key in entry);
  return value.some(isPlay) ? (value as Record<string, unknown>[]) : undefined;
}

/** Whether a YAML file's first document is a Kubernetes object (`apiVersion` and `kind`). */
function isKubernetesManifest(content: string): boolean {
  const [first] = parseAllDocuments(content);
  const value: unknown = first?.errors.length === 0 ? first.toJS() : undefined;
  return typeof value === "object" && value !== null && "apiVersion" in value && "kind" in value;
}

/** The role names a play uses: `roles` entries as strings, `{role: x}` or `{name: x}`. */
function rolesOf(play: Record<string, unknown>): string[] {
  const roles = Array.isArray(play.roles) ? play.roles : [];
  return roles.flatMap((entry: unknown) => {
    if (typeof entry === "string") return [entry];
    if (typeof entry === "object" && entry !== null) {
      const named =
        (entry as Record<string, unknown>).role ?? (entry as Record<string, unknown>).name;
      return typeof named === "string" ? [named] : [];
    }
    return [];
  });
}

/** The playbook a play imports, if it is an import. */
function importOf(play: Record<string, unknown>): string | undefined {
  const target = play.import_playbook ?? play["ansible.builtin.import_playbook"];
  return typeof target === "string" ? target : undefined;
}

/** A plain relative path that stays inside the scratch folder. */
function safeRelative(path: string): boolean {
  return (
    path !== "" &&
    !path.startsWith("/") &&
    !path.includes("\\") &&
    path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  );
}

function toolEnv(scratch: string): NodeJS.ProcessEnv {
  const config = join(scratch, ".kiln-ansible.cfg");
  writeFileSync(config, "[defaults]\n");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ANSIBLE_CONFIG: config,
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_FORCE_COLOR: "0",
    ANSIBLE_LOCAL_TEMP: join(scratch, ".tmp"),
    ANSIBLE_HOME: join(scratch, ".home"),
    ANSIBLE_INVENTORY_UNPARSED_FAILED: "True",
    ANSIBLE_INVENTORY_ENABLED: "host_list,ini,yaml",
    ANSIBLE_RETRY_FILES_ENABLED: "False",
    ANSIBLE_ROLES_PATH: join(scratch, "roles"),
  };
  delete env.ANSIBLE_INVENTORY;
  return env;
}

function runTool(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input?: string,
): string | undefined {
  const result = spawnSync(command, args, {
    cwd,
    env,
    input,
    encoding: "utf8",
    timeout: TOOL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.error) return `${command} could not run: ${result.error.message}`;
  if (result.status !== 0) {
    // the scratch folder's path means nothing to the reader: the file is named relative to it
    const said = `${result.stderr}\n${result.stdout}`.split(`${cwd}/`).join("");
    return firstLines(said) || `${command} exited ${result.status}`;
  }
  return undefined;
}

/** Terraform's parser on one file, through stdin, with no configuration of the machine's. */
function terraformProblem(content: string, scratch: string): string | undefined {
  const problem = runTool(
    "terraform",
    ["fmt", "-no-color", "-"],
    scratch,
    {
      ...process.env,
      CHECKPOINT_DISABLE: "1",
      TF_IN_AUTOMATION: "1",
      TF_CLI_CONFIG_FILE: join(scratch, ".kiln-terraform.rc"),
    },
    content,
  );
  return problem === undefined ? undefined : `terraform fmt refuses it: ${problem}`;
}

/** Checks one render's files with every tool that applies and is installed. */
export function checkRenderedFiles(files: readonly RenderedFile[]): ToolCheckResult {
  const result: ToolCheckResult = { problems: [], missing: new Set(), ran: new Set() };
  const scratch = mkdtempSync(join(tmpdir(), "kiln-registry-validate-"));
  try {
    const inventories: RenderedFile[] = [];
    const playbooks: { file: RenderedFile; plays: Record<string, unknown>[] }[] = [];
    for (const file of files) {
      if (isYaml(file.path)) {
        result.ran.add("YAML");
        const problem = yamlProblem(file.content);
        if (problem) {
          result.problems.push({ path: file.path, problem });
          continue;
        }
        const plays = playsOf(file.content);
        if (plays) playbooks.push({ file, plays });
        else if (isKubernetesManifest(file.content)) result.missing.add("kubernetes");
      } else if (file.path.endsWith(".tf")) {
        if (!commandOnPath("terraform")) {
          result.missing.add("terraform");
          continue;
        }
        result.ran.add("terraform fmt");
        const problem = terraformProblem(file.content, scratch);
        if (problem) result.problems.push({ path: file.path, problem });
      } else if (file.path.endsWith(".ini")) {
        inventories.push(file);
      }
    }
    if (inventories.length + playbooks.length > 0) {
      if (!commandOnPath("ansible-inventory") || !commandOnPath("ansible-playbook")) {
        result.missing.add("ansible");
      } else {
        checkWithAnsible(inventories, playbooks, files, scratch, result);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return result;
}

/** Writes `content` at `path` below `scratch` (never executable), its folders made. */
function place(scratch: string, path: string, content: string): void {
  const target = join(scratch, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content, { mode: 0o644 });
}

function checkWithAnsible(
  inventories: readonly RenderedFile[],
  playbooks: readonly { file: RenderedFile; plays: Record<string, unknown>[] }[],
  files: readonly RenderedFile[],
  scratch: string,
  result: ToolCheckResult,
): void {
  const env = toolEnv(scratch);
  const written = new Set(files.map((file) => file.path));
  for (const file of [...inventories, ...playbooks.map((playbook) => playbook.file)]) {
    if (safeRelative(file.path)) place(scratch, file.path, file.content);
  }
  // the playbooks' YAML files of the item's roles (tasks, handlers, defaults) come along: only
  // data, never a .py file
  for (const file of files) {
    if (file.path.startsWith("roles/") && isYaml(file.path) && safeRelative(file.path)) {
      place(scratch, file.path, file.content);
    }
  }
  for (const inventory of inventories) {
    if (!safeRelative(inventory.path)) continue;
    result.ran.add("ansible-inventory");
    const problem = runTool("ansible-inventory", ["-i", inventory.path, "--list"], scratch, env);
    if (problem)
      result.problems.push({ path: inventory.path, problem: `ansible-inventory: ${problem}` });
  }
  for (const { file, plays } of playbooks) {
    if (!safeRelative(file.path)) continue;
    const folder = dirname(file.path);
    for (const play of plays) {
      for (const role of rolesOf(play)) {
        if (!safeRelative(role) || written.has(`roles/${role}/tasks/main.yml`)) continue;
        const stub = join("roles", role, "tasks", "main.yml");
        if (!existsSync(join(scratch, stub))) place(scratch, stub, "---\n[]\n");
      }
      const imported = importOf(play);
      if (imported === undefined || imported.includes("{{")) continue;
      const path = folder === "." ? imported : `${folder}/${imported}`;
      if (safeRelative(path) && !existsSync(join(scratch, path))) {
        place(scratch, path, "- hosts: localhost\n  gather_facts: false\n  tasks: []\n");
      }
    }
    result.ran.add("ansible-playbook --syntax-check");
    const problem = runTool(
      "ansible-playbook",
      ["--syntax-check", "-i", "localhost,", file.path],
      scratch,
      env,
    );
    if (problem)
      result.problems.push({
        path: file.path,
        problem: `ansible-playbook --syntax-check: ${problem}`,
      });
  }
}
