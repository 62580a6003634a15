// Which real-tool tests a local run skips, for the last lines of scripts/run-tests.mjs: the
// browser tests without chromium, the automation tool checks without ansible-core, the SSH
// connection without openssh or root, the completion tests without zsh or fish, the Terraform
// syntax checks without terraform. Each suite skips itself with a message (test/e2e/harness.ts,
// test/tools/*.ts) that scrolls away in a long run; the summary repeats it at the end. With
// KILN_REQUIRE_TOOLS=1 (CI) a missing tool fails its tests instead, so nothing is skipped, except
// what is optional: terraform is HashiCorp's binary, not a Debian package, and CI may lack it.
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Whether `command` is an executable on `path` (a PATH value). */
function onPath(command, path) {
  return (path ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, command)));
}

/**
 * The tools, what skips without them, and which test files need them: each `needs` reads a
 * test file's path and text. `missing` says what is absent, or undefined when all is there.
 * KILN_TEST_CHROMIUM_PATH stands in for /usr/bin/chromium in the test of this summary.
 */
const TOOLS = [
  {
    what: "browser tests",
    needs: (file, text) => /[\\/]e2e[\\/]/.test(file) || text.includes("e2e/harness"),
    missing: (env) =>
      existsSync(env.KILN_TEST_CHROMIUM_PATH ?? "/usr/bin/chromium")
        ? undefined
        : "chromium not installed (apt-get install chromium)",
  },
  {
    what: "automation tool checks",
    needs: (_file, text) => text.includes("tools/ansible"),
    missing: (env) => {
      const absent = ["ansible-inventory", "ansible-playbook"].filter(
        (tool) => !onPath(tool, env.PATH),
      );
      return absent.length === 0
        ? undefined
        : `${absent.join(" and ")} not installed (apt-get install ansible-core)`;
    },
  },
  {
    what: "SSH connection tests",
    needs: (_file, text) => text.includes("tools/sshd"),
    missing: (env) => {
      if (!existsSync("/usr/sbin/sshd"))
        return "sshd not installed (apt-get install openssh-server)";
      if (!onPath("ssh-keygen", env.PATH))
        return "ssh-keygen not installed (apt-get install openssh-client)";
      return process.getuid?.() === 0 ? undefined : "they make a test user, which needs root";
    },
  },
  {
    what: "Terraform syntax checks (terraform fmt)",
    optional: true,
    needs: (_file, text) => text.includes("terraformSkip"),
    missing: (env) =>
      onPath("terraform", env.PATH) ? undefined : "terraform not installed (optional)",
  },
  ...["zsh", "fish"].map((shell) => ({
    what: `${shell} completion tests`,
    needs: (file) => file.endsWith("completion.test.ts"),
    missing: (env) =>
      onPath(shell, env.PATH) ? undefined : `${shell} not installed (apt-get install ${shell})`,
  })),
];

/**
 * One line per kind of test the run skipped for a missing tool, e.g. `browser tests skipped:
 * chromium not installed (apt-get install chromium)`; with KILN_REQUIRE_TOOLS=1 only the
 * optional tools' lines (the others fail instead of skipping).
 */
export function skippedToolLines(files, env = process.env) {
  const required = env.KILN_REQUIRE_TOOLS === "1";
  const texts = files.map((file) => [file, readFileSync(file, "utf8")]);
  return TOOLS.flatMap((tool) => {
    if (required && !tool.optional) return [];
    if (!texts.some(([file, text]) => tool.needs(file, text))) return [];
    const reason = tool.missing(env);
    return reason === undefined ? [] : [`${tool.what} skipped: ${reason}`];
  });
}
