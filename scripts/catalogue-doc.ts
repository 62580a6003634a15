// Writes docs/catalogue.md from the built-in registry, so the component reference in the docs is
// always the catalogue itself, and the rule list of `kiln check` in docs/cli.md from the rule
// registry, so the documented rules are the rules that run. `npm run docs:catalogue` rewrites
// both; tests fail when either is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type FieldCheck,
  type ItemMeta,
  itemChecks,
  itemMeta,
  type RegistryItem,
  toItemView,
} from "../src/core/item.ts";
import { CHECK_RULES } from "../src/core/project/checks/check-project.ts";
import { builtinRegistry } from "../src/node/builtin-registry.ts";

const cell = (text: string | null): string =>
  text === null || text === "" ? "" : text.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (text: string | null): string => (text === null ? "" : `\`${cell(text)}\``);

/** What the tables cannot say: how values are written, and the choices kiln makes on its own. */
const NOTES = `
## How values are written

Every value a template writes goes through one of kiln's filters (in \`src/core/filters.ts\`,
available to any registry item's templates too), so that no value can change the structure of
the file around it. Writing filters write any value so that the file's reader reads it back
exactly:

| filter | writes | used for |
|---|---|---|
| \`yaml\` | a one-line YAML scalar that YAML 1.1 and 1.2 read back as exactly the string: quoted only when needed (\`yes\`, \`0755\`, \`a: b\`, \`*.example.com\`, \`""\`, \`---\`, \`<<\`, \`=\`), with the line breaks of YAML 1.1 (U+0085, U+2028, U+2029) escaped; lists and maps as flow collections | Kubernetes manifests, playbooks, roles, group vars |
| \`yaml_var\` | an automation variable's value: a whole number as typed (\`"8080"\` gives \`8080\`, as the original tool writes group vars), anything else as \`yaml\` writes it (\`1.20\`, \`0755\`, \`yes\` stay quoted strings) | group vars, role vars in plays |
| \`yaml_key\` | a mapping key, as \`yaml\` writes it | labels, group vars, role vars |
| \`yaml_json\` | \`tojson\`'s JSON made safe for YAML 1.1 readers (\`{{ v \\| tojson \\| yaml_json }}\`) | lists and maps in playbooks and group vars |
| \`hcl\` / \`hcl_escape\` | a quoted HCL string (or its inside), with \`\${\` and \`%{\` doubled so a value never interpolates | Terraform files |
| \`tf_identifier\` | a valid Terraform name: characters outside \`[A-Za-z0-9_-]\` become \`_\`, and \`_\` is put in front of a leading digit | resource labels (\`my.app\` → \`my_app\`) |
| \`ini_value\` | an inventory value that the automation tool's INI parser (shlex, then Python literal evaluation) reads back exactly: plain text stays bare, anything else becomes a Python string literal | \`[group:vars]\` lines |
| \`ini_host_value\` | the same, shell-quoted for a host line | host variables |
| \`cfg_value\` | a configparser value with \`%\` doubled | \`cm.cfg\` |

Whole numbers are written bare in inventories (\`cm_port=22\`) and read back as numbers; every
other value comes back as the exact string.

Checking filters pass a value on unchanged when it can be written where it goes, and refuse it
otherwise: the render fails with \`<reference>: <what was wrong and what is allowed>\` and
nothing is written. They take the field's name for the message, as in
\`{{ port | integer("port") }}\`:

| filter | refuses | used for |
|---|---|---|
| \`integer\` | anything but a whole number in digits (\`three\`, \`80\\n hostPort: 22\`, \`-1\`, \`1.5\`, \`0755\`) | \`replicas\`, \`port\`, \`target_port\`, \`count\` |
| \`text\` | a list or map (what a JSON-looking value becomes) | \`image\`, \`host\`, \`path\`, \`service\`, \`region\`, \`size\`, \`os_image\`, \`k8s_version\` |
| \`ini_group_name\`, \`ini_host_name\`, \`ini_var_name\` | a name the INI inventory cannot hold: spaces, line breaks, control characters; \`:\`, \`[\`, \`]\` in group names; quotes, \`\\\`, \`#\`, ranges (\`web[1:3]\`) and ports (\`web:22\`) in host names; \`=\`, quotes, \`\\\`, \`#\` in variable names | group, child, host and variable names of \`automation/inventory\` |
| \`yaml_key\` | a key longer than 1024 characters as written | as above |
| \`yaml_block\` | raw YAML that would not stay in place: invalid YAML, line breaks other than \`\\n\`, control characters, document markers, what the automation tool's YAML reader cannot read (tabs between tokens, empty keys, unknown tags) | group vars \`yaml\`, plays' \`pre_tasks\` and \`post_tasks\` |
| \`cfg_value\` | a line break or control character, a space at either end, a \`;\` at the start or after a space | \`cm.cfg\` |

The rules per format and the refusal mechanism: [security.md](security.md#values-in-built-in-templates).

Choices kiln makes on its own (no fixed rule covers them):

- \`replicas\`, \`port\` and \`count\` are written as typed when they are whole numbers, and
  refused otherwise (before rendering, by their declared format; the template's \`integer\`
  filter refuses them too, for items that declare nothing); an empty value falls back to the
  field's default. A service \`target_port\` or an ingress \`port\` that is not all digits
  must be a port name (an IANA service name such as \`http\`) and is written as a named port.
- A play without \`hosts\` targets \`all\`; \`become\` is written only when true; a role entry
  may be a string, \`{role}\`, or \`{role, when, tags, vars}\`.
- The inventory writes groups in the given order, each as \`[group]\` (left out for a group
  with children and no members), then \`[group:children]\`, then \`[group:vars]\`.
- \`k8s-bootstrap\` targets Debian and Ubuntu hosts: kernel modules and sysctls, swap off,
  containerd with the systemd cgroup driver, the pkgs.k8s.io repository for the version, and
  kubelet, kubeadm and kubectl held at it. \`k8s_version\` may be \`1.31\`, \`v1.31\` or \`1.31.2\`.
- The Terraform files declare a sensitive token variable (\`hcloud_token\`, \`do_token\`), the
  provider, its \`required_providers\` entry and one counted server resource named
  \`<name>-\${count.index}\`, plus an output with the servers' IPv4 addresses.

## Terraform folders: one root module per server component

Terraform loads every \`.tf\` file of a folder as one configuration (a root module) and refuses
it when a provider requirement, a variable, a provider, a resource or an output is declared
twice there: two server components' files side by side in one folder fail \`terraform init\`
with "Duplicate required providers configuration" and "Duplicate variable declaration", although
each file is valid alone. So each server component writes its own folder, named after the
component and its provider, holding one complete configuration:

| component | writes | \`terraform init\` in |
|---|---|---|
| \`infra/cloud-a\` \`control-plane\` | \`control-plane-hetzner/control-plane-hetzner.tf\` | \`infra/control-plane-hetzner/\` |
| \`infra/cloud-b\` \`app\` | \`app-digitalocean/app-digitalocean.tf\` | \`infra/app-digitalocean/\` |

The servers of kiln's own registry \`@kiln\` (\`aws-server\`, \`gcp-server\`,
\`scaleway-server\`, \`linode-server\`, and the private-network variants \`hetzner-private\` and
\`digitalocean-private\`; source in \`registries/kiln/\`, shipped built in the package, each with
a \`private_network\` field: [registries.md](registries.md#kiln-kilns-own-registry)) keep
this layout: \`<name>-aws/<name>-aws.tf\`, \`<name>-gcp/<name>-gcp.tf\`, and so on.

Any set of server components then loads: two components of one provider, or a Hetzner and a
DigitalOcean component of one name, never share a folder, so their provider requirements, token
variables, provider blocks, resources and outputs never meet (two components of one item and
one name write one path, which the path rules refuse, as always). Run Terraform per folder:
\`terraform -chdir=infra/control-plane-hetzner init\`, then \`plan\` and \`apply\` there; each
folder keeps its own state.

Why this design and not one shared provider file per folder: each file stays the whole
configuration the catalogue describes (token variable, provider block, \`required_providers\`,
the counted server and its output), valid alone, rendered by the component like every other
file, so \`kiln render\`, the HTTP API's render, the dashboard's zip, \`kiln.lock\` and the
path rules treat it as they treat any component file. A provider file written by the project
layout would be a file no component owns: every front would have to write, lock, update and
remove it, and one component rendered alone would no longer be a configuration Terraform loads.
The cost is one folder per server component instead of one flat \`infra/\`.

The check rule \`terraform-folder-shared\` (\`kiln check\`, the dashboard) reports the cases
left: two components writing \`.tf\` or \`.tf.json\` files into one folder (a registry item of
your own with a flat path, beside a built-in or another), which Terraform would refuse.
`;

/** One line saying what the catalogue metadata declares: stage, kind, facts, editors. */
/** A field's declared value format for the table: its format (with bounds) and/or its shape. */
function valueCell(check: FieldCheck | undefined): string {
  if (!check) return "";
  const parts: string[] = [];
  if (check.format) {
    const bounds =
      check.minimum !== undefined || check.maximum !== undefined
        ? ` ${check.minimum ?? ""}..${check.maximum ?? ""}`
        : "";
    parts.push(`\`${check.format}\`${bounds}`);
  }
  if (check.schema !== undefined) parts.push(schemaSummary(check.schema));
  return parts.join(", ");
}

/** A schema in a few words: a text pattern said as it is, any other shape shown below. */
function schemaSummary(schema: unknown): string {
  const plain = schema as { type?: unknown; pattern?: unknown };
  if (plain.type === "string" && typeof plain.pattern === "string") {
    return `text matching \`${plain.pattern}\``;
  }
  return "JSON, shape below";
}

/** The JSON Schema of each field that declares one, folded away under the table. */
function schemaBlocks(item: RegistryItem): string[] {
  const lines: string[] = [];
  for (const [field, check] of Object.entries(itemChecks(item).fields)) {
    if (check.schema === undefined) continue;
    lines.push(
      "",
      `<details><summary>Shape of <code>${field}</code> (JSON Schema)</summary>`,
      "",
      "```json",
      JSON.stringify(check.schema, null, 2),
      "```",
      "",
      "</details>",
    );
  }
  return lines;
}

function metaLine(meta: ItemMeta): string {
  const parts = [`stage \`${meta.stage}\``];
  if (meta.kind) parts.push(`kind \`${meta.kind}\`${meta.suggest ? " (suggested by checks)" : ""}`);
  const facts = Object.entries(meta.facts).map(([fact, field]) =>
    fact === field ? `\`${fact}\`` : `\`${fact}\` ← \`${field}\``,
  );
  if (facts.length > 0) parts.push(`facts ${facts.join(", ")}`);
  const editors = Object.entries(meta.editors).map(([field, kind]) => `\`${field}\` (${kind})`);
  if (editors.length > 0) parts.push(`editors ${editors.join(", ")}`);
  if (meta.writes) parts.push(`writes \`${meta.writes}\` before it renders`);
  return `Catalogue metadata: ${parts.join(" · ")}`;
}

export function catalogueMarkdown(): string {
  const lines = [
    "# Built-in components",
    "",
    "<!-- Generated from src/core/registry by `npm run docs:catalogue`; edit the component folders, not this file. -->",
    "",
    "Each component is a folder `src/core/registry/<category>/<name>/` holding `component.json`",
    "(title, description, fields, files) and its template files. Every template receives `name`,",
    "`namespace` and `labels` (a map with `app` = `name` unless supplied) besides the fields below.",
    "Every value is a string; values starting with `[` or `{` that are valid JSON reach the",
    "template as lists and maps. Each `component.json` also carries the catalogue metadata",
    '(`kiln`, per-field `editor` and `format`; README, "Catalogue metadata"): the dashboard',
    "stage, the structured editors, and which fields hold the facts the checks read.",
    "",
    "The **value** column says what a field's value must be, checked before anything renders",
    '(README, "Field formats and shapes"): a format, with its bounds (`0..2147483647`), or JSON of',
    "the shape folded under the table (a JSON Schema; JSON text that does not parse is refused with",
    "its line and column). **Name** is the format of the component name. An empty value of a field",
    "that is not required is not checked: it means unset. A refused value names the component, the",
    "field and the place inside a JSON value:",
    "``automation/inventory: `hosts[0].members[1].cm_port` must be a port number ...``.",
    "",
    "| reference | title | stage | output paths |",
    "|---|---|---|---|",
  ];
  const registryItems: readonly RegistryItem[] = builtinRegistry().items;
  const items = registryItems.map(toItemView);
  items.forEach((item, index) => {
    const meta = itemMeta(registryItems[index] as RegistryItem);
    lines.push(
      `| [\`${item.reference}\`](#${item.reference.replace("/", "")}) | ${cell(item.title)} | ${meta.stage} | ${item.files.map(code).join("<br>")} |`,
    );
  });
  items.forEach((item, index) => {
    const registryItem = registryItems[index] as RegistryItem;
    const meta = itemMeta(registryItem);
    const checks = itemChecks(registryItem);
    lines.push(
      "",
      `## ${item.reference}`,
      "",
      `**${cell(item.title)}**: ${cell(item.description)}`,
      "",
    );
    lines.push(`Writes: ${item.files.map(code).join(", ")}`, "", metaLine(meta), "");
    if (checks.nameFormat) lines.push(`Name: \`${checks.nameFormat}\``, "");
    if (item.fields.length === 0) {
      lines.push("No fields.");
      return;
    }
    lines.push(
      "| field | required | default | example | value | description | suggested values |",
      "|---|---|---|---|---|---|---|",
    );
    for (const field of item.fields) {
      const options = field.options.map((option) =>
        option.label === option.value
          ? code(option.value)
          : `${code(option.value)} (${cell(option.label)})`,
      );
      lines.push(
        `| \`${field.name}\` | ${field.required ? "yes" : "no"} | ${code(field.default)} | ${code(field.example)} | ${valueCell(checks.fields[field.name])} | ${cell(field.description)} | ${options.join(", ")} |`,
      );
    }
    lines.push(...schemaBlocks(registryItem));
  });
  lines.push("", ...NOTES.trim().split("\n"));
  return `${lines.join("\n")}\n`;
}

const RULES_START = "<!-- check rules: generated by `npm run docs:catalogue` from CHECK_RULES -->";
const RULES_END = "<!-- end of check rules -->";

/** The rule table of `kiln check`, in reporting order. */
export function checkRulesMarkdown(): string {
  return [
    RULES_START,
    "",
    "| rule | severity | what it finds |",
    "|---|---|---|",
    ...CHECK_RULES.map((rule) => `| \`${rule.id}\` | ${rule.severity} | ${cell(rule.summary)} |`),
    "",
    RULES_END,
  ].join("\n");
}

/** docs/cli.md with its rule table replaced by the current one. */
export function cliDocWithRules(text: string): string {
  const start = text.indexOf(RULES_START);
  const end = text.indexOf(RULES_END);
  if (start < 0 || end < start) throw new Error("docs/cli.md has no check rules markers");
  return text.slice(0, start) + checkRulesMarkdown() + text.slice(end + RULES_END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL("../docs/catalogue.md", import.meta.url), catalogueMarkdown());
  const cli = new URL("../docs/cli.md", import.meta.url);
  writeFileSync(cli, cliDocWithRules(readFileSync(cli, "utf8")));
  console.log("wrote docs/catalogue.md and the check rules of docs/cli.md");
}
