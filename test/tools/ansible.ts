// Validating automation files with the real automation tool (ansible-core): what passes here,
// the tool reads. CI installs only Debian's `ansible-core` (no collections), so the files under
// test may use ansible.builtin modules only.
//
// When the tools are missing, tests skip with a message, unless KILN_REQUIRE_TOOLS=1: then the
// tests run and fail, so CI cannot pass by silently skipping every real-tool check.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";

const TOOLS = ["ansible-inventory", "ansible-playbook"] as const;

/** True when the environment demands the real tools (CI): missing tools fail instead of skip. */
export function toolsRequired(): boolean {
  return process.env.KILN_REQUIRE_TOOLS === "1";
}

/** Where `command` is found on PATH (an executable file), or undefined. */
function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {}
  }
  return undefined;
}

/**
 * The Python the automation tool runs on: the interpreter its `ansible-inventory` script names
 * on its first line (`#!/usr/bin/python3`, a virtual environment's python, or `#!/usr/bin/env
 * python3`: python3 from PATH), so a test reads a file with the very YAML loader the tool uses.
 * Read from the script rather than asked of `ansible-inventory --version`, which starts the
 * tool's Python (about 0.35 s of CPU) to print the same path.
 */
export function ansiblePython(): string {
  const script = onPath("ansible-inventory");
  const firstLine =
    script === undefined ? "" : (readFileSync(script, "latin1").split("\n")[0] ?? "");
  const [interpreter, argument] = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine)?.slice(1) ?? [];
  if (interpreter === undefined) return "python3";
  return basename(interpreter) === "env" && argument !== undefined ? argument : interpreter;
}

let missingReason: string | null | undefined;

/**
 * Why the ansible tools cannot run here, or undefined when they can: each must be on PATH
 * (scripts/skipped-tools.mjs asks the same for the run's summary). Looked up, not started with
 * `--version`: each start of the tool is its Python's start, about 0.35 s of CPU, twice in every
 * file that uses the tools; a tool that is there but broken fails its tests with its own output.
 */
export function ansibleMissing(): string | undefined {
  if (missingReason === undefined) {
    const absent = TOOLS.find((tool) => onPath(tool) === undefined);
    missingReason =
      absent === undefined
        ? null
        : `${absent} is not available (not found on PATH); install Debian's ansible-core to run the automation tool checks`;
  }
  return missingReason ?? undefined;
}

/**
 * The `skip` option for a test that needs the ansible tools: a message when they are missing
 * and not required, otherwise false (with KILN_REQUIRE_TOOLS=1 the test runs and fails).
 * Use as `it("...", { skip: ansibleSkip() }, () => ...)`.
 */
export function ansibleSkip(): string | false {
  const reason = ansibleMissing();
  return reason !== undefined && !toolsRequired() ? `skipped: ${reason}` : false;
}

/** Fails with a clear message when the tools are required here but missing. */
function assertToolsPresent(): void {
  const reason = ansibleMissing();
  if (reason !== undefined) {
    throw new Error(
      toolsRequired() ? `KILN_REQUIRE_TOOLS=1 but ${reason}` : `cannot run ansible: ${reason}`,
    );
  }
}

let scratch: string | undefined;

/**
 * The environment for every run: no colours, a private temp dir (not ~/.ansible/tmp), an
 * inventory the tool cannot parse is an error rather than a warning, and the config file is
 * exactly `config` (or none of the caller's: an inherited ANSIBLE_CONFIG is dropped).
 */
function ansibleEnv(config: string | undefined): NodeJS.ProcessEnv {
  if (scratch === undefined) {
    const made = mkdtempSync(join(tmpdir(), "kiln-ansible-"));
    // one scratch folder per test file, gone when the file's process ends
    process.on("exit", () => rmSync(made, { recursive: true, force: true }));
    scratch = made;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_FORCE_COLOR: "0",
    ANSIBLE_LOCAL_TEMP: join(scratch, "tmp"),
    ANSIBLE_HOME: join(scratch, "home"),
    ANSIBLE_INVENTORY_UNPARSED_FAILED: "True",
    ANSIBLE_RETRY_FILES_ENABLED: "False",
  };
  delete env.ANSIBLE_CONFIG;
  delete env.ANSIBLE_INVENTORY;
  if (config !== undefined) env.ANSIBLE_CONFIG = config;
  return env;
}

export interface AnsibleRun {
  stdout: string;
  stderr: string;
}

/** Runs one tool; throws with the command, status and output when it does not exit 0. */
function run(tool: string, args: string[], cwd: string, config?: string): AnsibleRun {
  assertToolsPresent();
  const result = spawnSync(tool, args, {
    cwd,
    env: ansibleEnv(config),
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error || result.status !== 0) {
    throw new Error(
      `${tool} ${args.join(" ")} (in ${cwd}) failed: ${result.error?.message ?? `exit ${result.status}`}\n${result.stdout}${result.stderr}`,
    );
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * `ansible-inventory -i <file> --graph`: the group tree as the tool prints it
 * (`@all:` / `  |--@web:` / `  |  |--web-1`). Throws when the file is not a valid inventory.
 */
export function ansibleInventoryGraph(file: string): string {
  const path = resolve(file);
  return run("ansible-inventory", ["-i", path, "--graph"], dirname(path)).stdout;
}

/** `ansible-inventory --list` output: groups by name, and `_meta.hostvars` by host. */
export interface AnsibleInventoryList {
  _meta: { hostvars: Record<string, Record<string, unknown>> };
  [group: string]:
    | { hosts?: string[]; children?: string[]; vars?: Record<string, unknown> }
    | AnsibleInventoryList["_meta"];
}

/**
 * `ansible-inventory -i <file> --list`, parsed: every host's variables as the tool resolved them
 * (group vars merged in), so tests can assert values round-trip exactly.
 */
export function ansibleInventoryList(file: string): AnsibleInventoryList {
  const path = resolve(file);
  const { stdout } = run("ansible-inventory", ["-i", path, "--list"], dirname(path));
  return JSON.parse(stdout) as AnsibleInventoryList;
}

/**
 * `ansible-inventory -i <a> -i <b> ... --list`, parsed: several inventory files read by one run
 * of the tool (one start of its Python instead of one a file). The tool merges them: groups of
 * the same name in two files are one group, so callers give each file its own names.
 */
export function ansibleInventoryListAll(files: readonly string[]): AnsibleInventoryList {
  const paths = files.map((file) => resolve(file));
  const args = [...paths.flatMap((path) => ["-i", path]), "--list"];
  const { stdout } = run("ansible-inventory", args, dirname(paths[0] as string));
  return JSON.parse(stdout) as AnsibleInventoryList;
}

/** The resolved variables of one host (`--list`'s `_meta.hostvars[host]`), `{}` if it has none. */
export function ansibleHostVars(file: string, host: string): Record<string, unknown> {
  return ansibleInventoryList(file)._meta.hostvars[host] ?? {};
}

/**
 * `ansible-playbook --syntax-check <playbook>` run from `dir`, with ANSIBLE_CONFIG=cm.cfg when
 * `dir` has one (the inventory and roles path then come from it, as in a kiln project).
 * `playbook` is relative to `dir`. Returns the output; throws with it when the check fails.
 */
export function ansibleSyntaxCheck(dir: string, playbook: string): AnsibleRun {
  return ansibleSyntaxCheckAll(dir, [playbook]);
}

/**
 * `ansibleSyntaxCheck` of several playbooks in one run of the tool (it checks each it is given
 * and fails when any fails, naming it): one start of the tool instead of one a playbook.
 */
export function ansibleSyntaxCheckAll(dir: string, playbooks: readonly string[]): AnsibleRun {
  const root = resolve(dir);
  const config = join(root, "cm.cfg");
  return run(
    "ansible-playbook",
    ["--syntax-check", ...playbooks],
    root,
    existsSync(config) ? config : undefined,
  );
}
