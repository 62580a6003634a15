// The Terraform components of the built-in catalogue (infra/cloud-a: Hetzner Cloud servers,
// infra/cloud-b: DigitalOcean droplets), rendered through the real core: every output must parse
// as HCL (test/tools/hcl.ts: tree-sitter's HCL grammar plus the HCL rules it does not check),
// follow Terraform's naming rule, and hold exactly the values given, whatever characters they
// contain; where `terraform` is installed, every output also passes Terraform's own parser.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: HCL's `${` is this file's subject: plain strings hold it literally on purpose
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { hclEscape, hclString, tfIdentifier } from "../../src/core/filters.ts";
import { toItemView } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { BUILTIN_REGISTRY_DIR, loadComponentFolder } from "../../src/node/builtin-registry.ts";
import { builtinRenderer } from "../../src/node/builtin-renderer.ts";
import { resolveReference } from "../../src/node/resolve-reference.ts";
import {
  hclJsonLiteral,
  parseHcl,
  parseTerraform,
  terraformFmt,
  terraformSkip,
} from "../tools/hcl.ts";

// Only this file's part of the catalogue is loaded (in registry order), so these tests do not
// depend on the other categories' folders.
const order = JSON.parse(
  readFileSync(join(BUILTIN_REGISTRY_DIR, "index.json"), "utf8"),
) as string[];
const registry = new Registry(
  order
    .filter((reference) => reference.startsWith("infra/"))
    .map((reference) => loadComponentFolder(join(BUILTIN_REGISTRY_DIR, reference), reference)),
);
// the renderer kiln itself renders built-ins with: the compiled templates, or the sandboxed
// engine under KILN_ENGINE=sandbox (CI runs these suites both ways)
const engine = builtinRenderer();

interface Provider {
  reference: string;
  suffix: string;
  /** Terraform resource type of the server. */
  type: string;
  provider: string;
  source: string;
  token: string;
  /** Attribute names of region and size in the resource. */
  region: string;
  size: string;
  firstImage: string;
}

const PROVIDERS: Provider[] = [
  {
    reference: "infra/cloud-a",
    suffix: "hetzner",
    type: "hcloud_server",
    provider: "hcloud",
    source: "hetznercloud/hcloud",
    token: "hcloud_token",
    region: "location",
    size: "server_type",
    firstImage: "ubuntu-24.04",
  },
  {
    reference: "infra/cloud-b",
    suffix: "digitalocean",
    type: "digitalocean_droplet",
    provider: "digitalocean",
    source: "digitalocean/digitalocean",
    token: "do_token",
    region: "region",
    size: "size",
    firstImage: "ubuntu-24-04-x64",
  },
];

async function renderOne(
  reference: string,
  name: string,
  fields: Record<string, string>,
  labels: Record<string, string> = {},
) {
  const item = await resolveReference(reference, { registry });
  const { files } = renderItem(engine, item, { name, fields, labels, defaultNamespace: "default" });
  assert.equal(files.length, 1);
  return files[0] as { path: string; content: string };
}

/** Renders and parses one .tf file; returns its path, JSON form and its one server resource. */
async function terraform(
  p: Provider,
  name: string,
  fields: Record<string, string>,
  labels: Record<string, string> = {},
) {
  const file = await renderOne(p.reference, name, fields, labels);
  assert.ok(file.content.endsWith("\n"), "a file ends with a newline");
  // biome-ignore lint/suspicious/noExplicitAny: the tests walk the parsed HCL freely
  const json = (await parseTerraform(file.content, file.path)) as any;
  const servers = json.resource?.[p.type] ?? {};
  const labelsOfResources = Object.keys(servers);
  assert.equal(labelsOfResources.length, 1, "one server resource");
  const label = labelsOfResources[0] as string;
  return { path: file.path, json, label, server: servers[label][0] };
}

/** Values HCL would misread unless escaped: quotes, backslashes, template sequences, controls. */
const AWKWARD = [
  'say "hi"',
  "back\\slash",
  "${var.hcloud_token}",
  "%{ if true }x%{ endif }",
  "$${already}",
  "100%",
  "cost: $5",
  "two\nlines\r\n",
  "tab\there",
  "bell\u0007 backspace\b formfeed\f",
  "line\u2028separator",
  "# not a comment",
  "",
  "żółw ✓ 😀",
];

describe("catalogue metadata: infra components", () => {
  it("follows k8s/ingress in the spec's registry order", () => {
    assert.deepEqual(order.slice(2, 5), ["k8s/ingress", "infra/cloud-a", "infra/cloud-b"]);
  });

  for (const p of PROVIDERS) {
    it(`${p.reference}: title, description, fields, options and output path`, async () => {
      const view = toItemView(await resolveReference(p.reference, { registry }));
      assert.match(
        view.title,
        p.suffix === "hetzner" ? /Hetzner Cloud servers/ : /DigitalOcean droplets/,
      );
      assert.match(view.description, /provisions one or more .*(servers|cloud servers)/);
      assert.deepEqual(
        view.fields.map((f) => [f.name, f.required, f.default]),
        [
          ["region", true, null],
          ["size", true, null],
          ["os_image", true, p.firstImage],
          ["count", false, "1"],
        ],
      );
      const image = view.fields[2];
      assert.equal(image?.options.length, 6);
      assert.equal(image?.options[0]?.value, p.firstImage, "default is the first option");
      for (const option of image?.options ?? []) {
        assert.ok(option.label !== option.value, `option ${option.value} has its own label`);
      }
      assert.match(image?.description ?? "", /Any image identifier .* accepts works/);
      assert.ok(
        view.fields[0]?.example && view.fields[1]?.example,
        "region and size have examples",
      );
      assert.deepEqual(view.files, [`{{ name }}-${p.suffix}/{{ name }}-${p.suffix}.tf`]);
    });
  }

  it("gives exact titles and descriptions", async () => {
    const [a, b] = await Promise.all(
      PROVIDERS.map(async (p) => toItemView(await resolveReference(p.reference, { registry }))),
    );
    assert.equal(a?.title, "Hetzner Cloud servers");
    assert.equal(a?.description, "Terraform that provisions one or more Hetzner Cloud servers.");
    assert.equal(b?.title, "DigitalOcean droplets");
    assert.equal(
      b?.description,
      "Terraform that provisions one or more DigitalOcean droplets (cloud servers).",
    );
  });
});

for (const p of PROVIDERS) {
  describe(`${p.reference} renders`, () => {
    it("with the required values only: token, provider, requirements, one counted server", async () => {
      const { path, json, label, server } = await terraform(p, "web", {
        region: "fsn1",
        size: "small",
      });
      assert.equal(path, `web-${p.suffix}/web-${p.suffix}.tf`, "a folder of its own");
      assert.deepEqual(json.variable, {
        [p.token]: [
          {
            description: json.variable[p.token][0].description,
            type: "${string}",
            sensitive: true,
          },
        ],
      });
      assert.deepEqual(json.provider, { [p.provider]: [{ token: `\${var.${p.token}}` }] });
      const required = json.terraform[0].required_providers[0][p.provider];
      assert.equal(required.source, p.source);
      assert.match(required.version, /^~> \d+\.\d+$/);
      assert.equal(label, "web");
      assert.equal(server.count, 1);
      assert.equal(server.name, "web-${count.index}");
      assert.equal(server[p.region], "fsn1");
      assert.equal(server[p.size], "small");
      assert.equal(server.image, p.firstImage);
      assert.deepEqual(Object.keys(json.output), ["web_ipv4"]);
      assert.equal(json.output.web_ipv4[0].value, `\${${p.type}.web[*].ipv4_address}`);
    });

    it("fails without a required region or size", async () => {
      await assert.rejects(renderOne(p.reference, "web", { size: "s" }), {
        message: `--region is required for ${p.reference}`,
      });
      await assert.rejects(renderOne(p.reference, "web", { region: "r" }), {
        message: `--size is required for ${p.reference}`,
      });
    });

    it("with realistic values: the count is a number, as written", async () => {
      const { server } = await terraform(
        p,
        "k8s-node",
        { region: "nbg1", size: "cpx31", os_image: "debian-12", count: "3" },
        { tier: "cluster" },
      );
      assert.equal(server.count, 3);
      assert.equal(server.name, "k8s-node-${count.index}");
      assert.equal(server[p.region], "nbg1");
      assert.equal(server[p.size], "cpx31");
      assert.equal(server.image, "debian-12");
      if (p.type === "hcloud_server") {
        assert.deepEqual(server.labels, { app: "k8s-node", tier: "cluster" });
      }
    });

    it("with an empty count: one server", async () => {
      const { server } = await terraform(p, "web", { region: "r", size: "s", count: "" });
      assert.equal(server.count, 1);
    });

    it("with names that are not Terraform identifiers: a valid resource label", async () => {
      const cases: [string, string][] = [
        ["web-1", "web-1"],
        ["my.app", "my_app"],
        ["1st", "_1st"],
        ["-x", "_-x"],
        ["two words", "two_words"],
        ["żółw", "___w"],
        ["a${b}", "a__b_"],
      ];
      for (const [name, expected] of cases) {
        const { label, server, json } = await terraform(p, name, { region: "r", size: "s" });
        assert.equal(label, expected, name);
        assert.equal(hclJsonLiteral(server.name), `${name}-\${count.index}`, name);
        assert.deepEqual(Object.keys(json.output), [`${expected}_ipv4`]);
      }
    });

    it("with awkward values: each one parses and reads back exactly", async () => {
      for (const value of AWKWARD) {
        const labels = { [value || "empty"]: value };
        const { server } = await terraform(
          p,
          `x${value}`,
          { region: value, size: value, os_image: value },
          labels,
        );
        assert.equal(hclJsonLiteral(server[p.region]), value, JSON.stringify(value));
        assert.equal(hclJsonLiteral(server[p.size]), value, JSON.stringify(value));
        assert.equal(hclJsonLiteral(server.image), value, JSON.stringify(value));
        assert.equal(hclJsonLiteral(server.name), `x${value}-\${count.index}`);
        if (p.type === "hcloud_server") {
          const read = Object.fromEntries(
            Object.entries(server.labels as Record<string, string>).map(([k, v]) => [
              hclJsonLiteral(k),
              hclJsonLiteral(v),
            ]),
          );
          assert.deepEqual(read, { app: `x${value}`, ...labels });
        }
      }
    });

    it("with a user value holding ${...}: no interpolation reaches Terraform", async () => {
      const file = await renderOne(p.reference, "web", {
        region: "${var.secret}",
        size: "%{for x in y}${x}%{endfor}",
      });
      // the only interpolations left are the template's own
      const interpolations = file.content.match(/(?<!\$)\$\{[^}]*\}/g) ?? [];
      assert.deepEqual(interpolations, ["${count.index}"]);
      assert.doesNotMatch(file.content, /(?<!%)%\{/);
    });
  });
}

describe("Terraform's own parser (terraform fmt) on the rendered files", () => {
  for (const p of PROVIDERS) {
    it(`${p.reference}: every render of these tests passes`, {
      skip: terraformSkip(),
    }, async () => {
      const renders: [string, Record<string, string>, Record<string, string>][] = [
        ["web", { region: "fsn1", size: "small" }, {}],
        [
          "k8s-node",
          { region: "nbg1", size: "cpx31", os_image: "debian-12", count: "3" },
          { tier: "cluster" },
        ],
        ["web", { region: "${var.secret}", size: "%{for x in y}${x}%{endfor}" }, {}],
        ...["web-1", "my.app", "1st", "-x", "two words", "żółw", "a${b}"].map(
          (name): [string, Record<string, string>, Record<string, string>] => [
            name,
            { region: "r", size: "s" },
            {},
          ],
        ),
        ...AWKWARD.map((value): [string, Record<string, string>, Record<string, string>] => [
          `x${value}`,
          { region: value, size: value, os_image: value },
          { [value || "empty"]: value },
        ]),
      ];
      for (const [name, fields, labels] of renders) {
        const file = await renderOne(p.reference, name, fields, labels);
        terraformFmt(file.content, `${file.path} (${JSON.stringify({ name, fields, labels })})`);
      }
    });
  }

  it("terraformFmt throws Terraform's diagnostics on invalid HCL", {
    skip: terraformSkip(),
  }, () => {
    assert.throws(
      () => terraformFmt('labels = { "a" = "b" "c" = "d" }\n', "x.tf"),
      /terraform fmt rejects x\.tf: exit \d+\n[\s\S]*Missing attribute separator/,
    );
  });
});

describe("HCL helpers (test/tools/hcl.ts) and the kiln HCL filters", () => {
  it("parseHcl throws on invalid HCL, naming the line and column", async () => {
    await assert.rejects(
      parseHcl('a = "unterminated\n', "x.tf"),
      /^Error: x\.tf is not valid HCL: line 2, column 1: missing the closing " of a string$/,
    );
    await assert.rejects(parseHcl('a = "\\b"\n'), /not valid HCL: line 1, column 6/);
    await assert.rejects(parseHcl("resource {\n"), /not valid HCL: line 2, column 1: missing "}"/);
  });

  it("parseHcl keeps the HCL rules tree-sitter's grammar lets pass", async () => {
    const invalid: [string, RegExp][] = [
      ["a = 1 b = 2\n", /line 1, column 7: missing line break after the argument/],
      ["b {\n}  c = 1\n", /line 2, column 4: missing line break after the block/],
      ["b { a = 1\n}\n", /line 2, column 1: a one-line block must close on its line/],
      ["b {\na = 1 }\n", /line 2, column 7: missing line break before the block's "}"/],
      ['b "x"\n{\n}\n', /line 2, column 1: unexpected line break before "\{"/],
      ["a =\n1\n", /line 2, column 1: unexpected line break before "1"/],
      ["a = x\n.y\n", /line 2, column 1: unexpected line break before "\."/],
      ["a = { x = 1 y = 2 }\n", /line 1, column 13: missing comma or line break between object/],
      ['a = "x\ny"\n', /line 1, column 5: a quoted string cannot span lines/],
      ['b "${x}" {\n}\n', /line 1, column 3: a template sequence \$\{ is not allowed/],
      ["a = 1\na = 2\n", /line 2, column 1: "a" is set twice/],
      ["a = 0x10\n", /line 1, column 5: "0x10" is not an HCL number/],
      ["a::b = 1\n", /line 1, column 1: "a::b" is not an identifier/],
    ];
    for (const [text, message] of invalid) {
      await assert.rejects(parseHcl(text), message, JSON.stringify(text));
    }
    assert.deepEqual(await parseHcl("a = { x = 1, y = 2 }\nb { c = 1 }\nd = [\n  1,\n]\n"), {
      a: { x: 1, y: 2 },
      b: [{ c: 1 }],
      d: [1],
    });
  });

  it("parseHcl reads a run of $ or % before { as HCL does: literal text", async () => {
    // tree-sitter's scanner alone reads `$$${1+}` as `$$` and an interpolation of `1+`
    const json = await parseHcl('a = "$$${1+}"\nb = "%%%{ x }"\nc = "$$$${y}-${z}"\n');
    assert.deepEqual(json, { a: "$$${1+}", b: "%%%{ x }", c: "$$$${y}-${z}" });
    assert.equal(hclJsonLiteral(json.a as string), "$${1+}");
    assert.equal(hclJsonLiteral(json.c as string), "$$${y}-${z}");
  });

  it("parseHcl refuses what it does not convert, saying so", async () => {
    await assert.rejects(
      parseHcl("a = <<EOT\nhi\nEOT\n", "h.tf"),
      /^Error: h\.tf: line 1, column 5: a heredoc is not converted by test\/tools\/hcl\.ts/,
    );
    await assert.rejects(parseHcl('a = "%{ if x }y%{ endif }"\n'), /a %\{…\} directive is not/);
  });

  it("parseTerraform rejects names Terraform would refuse", async () => {
    await assert.rejects(
      parseTerraform('resource "x_server" "my.app" {\n}\n'),
      /resource name "my\.app"/,
    );
    await assert.rejects(parseTerraform('variable "1st" {\n}\n'), /variable name "1st"/);
    assert.ok(await parseTerraform('resource "x_server" "web-1" {\n}\n'));
  });

  it("hcl quotes and escapes; hcl_escape escapes only", () => {
    assert.equal(hclString('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(hclEscape("${x} %{y} $${z} 100%"), "$${x} %%{y} $$${z} 100%");
    assert.equal(hclEscape("\n\r\t\b\f\u2028"), "\\n\\r\\t\\u0008\\u000c\\u2028");
    assert.equal(hclString(["a"]), '"[\\"a\\"]"');
  });

  it("every escaped value reads back as itself through the HCL parser", async () => {
    for (const value of AWKWARD) {
      const json = await parseHcl(`a = ${hclString(value)}\nb = "${hclEscape(value)}-\${c}"\n`);
      assert.equal(hclJsonLiteral(json.a as string), value, JSON.stringify(value));
      assert.equal(hclJsonLiteral(json.b as string), `${value}-\${c}`, JSON.stringify(value));
    }
  });

  it("tf_identifier makes valid Terraform names", () => {
    assert.equal(tfIdentifier("web-1"), "web-1");
    assert.equal(tfIdentifier("my.app"), "my_app");
    assert.equal(tfIdentifier("1st"), "_1st");
    assert.equal(tfIdentifier(""), "_");
    assert.equal(tfIdentifier("wéb 😀"), "w_b__");
  });
});
