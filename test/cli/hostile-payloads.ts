// The paths a stranger's item or preset renders to that kiln must refuse to write, shared by
// every front's hostile tests (the CLI's in test/cli, `kiln mcp`'s in test/mcp): each front
// goes through the same write rules, and each test proves it with the same payloads.

/** Every spelling of `.git` as a rendered path: case, NTFS, HFS+, short names, backslashes. */
export const GIT_PATHS = [
  ".git/config",
  ".git/hooks/pre-commit",
  ".GIT/hooks/pre-commit",
  "x/.git./config",
  "git~1/config",
  ".g\u200cit/config",
  "deep/er/.Git /config",
  ".git",
  "a\\.git\\config",
];

/** Paths that leave the folder they are written into, and an absolute path. */
export const ESCAPING_PATHS = ["../k8s/x.txt", "a/../../x.txt", "/tmp/kiln-should-not-exist.txt"];

/** Every kind of place other tools run or load as code, as a rendered path. */
export const EXEC_PATHS = [
  ".envrc",
  ".vscode/tasks.json",
  ".idea/workspace.xml",
  ".devcontainer/devcontainer.json",
  ".devcontainer.json",
  ".github/workflows/ci.yml",
  ".github/actions/setup/action.yml",
  ".gitlab-ci.yml",
  ".circleci/config.yml",
  ".husky/pre-commit",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yaml",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".config/fish/config.fish",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  ".gitattributes",
  ".gitmodules",
];

/** Other spellings of such places: case, NTFS, HFS+, short names, in a subfolder. */
export const EXEC_SPELLINGS = [
  ".ENVRC",
  ".envrc.",
  ".envrc::$DATA",
  ".vs\u200ccode/settings.json",
  "sub/.Github/Workflows/x.yml",
  "deep/.config/FISH/conf.d/x.fish",
  "GITMOD~1",
  "gi7eba~1",
  "GITATT~2",
];
