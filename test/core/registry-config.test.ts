// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in configuration values is what is tested
// The pure half of namespaced registries: the reference syntax, the [registries] table and its
// bounds, `${VAR}` expansion, the URL as messages show it, redaction, the index, and the lock's
// format version for a registry's item.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseConfigRegistries } from "../../src/core/project/kiln-toml.ts";
import { lockVersionFor, parseLock, serializeLock } from "../../src/core/project/lock-format.ts";
import {
  checkExpandedHeader,
  displayUrl,
  expandVariables,
  fillTemplate,
  indexTemplate,
  mergeRegistries,
  parseRegistriesTable,
  parseRegistryReference,
  REGISTRY_LIMITS,
  type RegistryConfig,
  redactSecrets,
  referenceAtVersion,
} from "../../src/core/registry-config.ts";
import { indexEntry, parseRegistryIndex } from "../../src/core/registry-index.ts";

const env = (values: Record<string, string>) => (name: string) => values[name];

function registry(url: string, headers: Record<string, string> = {}): RegistryConfig {
  return { namespace: "@acme", url, headers, from: "kiln.toml" };
}

describe("references of the fourth kind", () => {
  test("only @ns/name and @ns/name@version are registry references; the spec's three kinds never are", () => {
    assert.deepEqual(parseRegistryReference("@acme/redis"), {
      namespace: "@acme",
      item: "redis",
      version: undefined,
    });
    assert.deepEqual(parseRegistryReference("@acme/redis@1.2.0"), {
      namespace: "@acme",
      item: "redis",
      version: "1.2.0",
    });
    for (const other of [
      "k8s/deployment",
      "deployment",
      "https://x.test/@acme/redis",
      "./@acme/redis",
      "@acme/redis.json",
      "@Acme/redis",
      "@acme",
      "@acme/",
      "@acme/redis@",
      "@acme/a/b",
    ]) {
      assert.equal(parseRegistryReference(other), undefined, other);
    }
  });

  test("an item name is at most 128 characters, a version at most 64", () => {
    assert.ok(parseRegistryReference(`@acme/${"r".repeat(128)}`));
    assert.equal(parseRegistryReference(`@acme/${"r".repeat(129)}`), undefined);
    assert.ok(parseRegistryReference(`@acme/redis@1.0.0-${"a".repeat(58)}`));
    assert.equal(parseRegistryReference(`@acme/redis@1.0.0-${"a".repeat(59)}`), undefined);
  });

  test("a reference typed with a version follows the pin; one without stays as typed", () => {
    assert.equal(referenceAtVersion("@acme/redis@1.2.0", "1.3.0"), "@acme/redis@1.3.0");
    assert.equal(referenceAtVersion("@acme/redis", "1.3.0"), "@acme/redis");
  });

  test("a namespace is at most 63 characters after its @, as a registry names itself", () => {
    const longest = `@${"a".repeat(REGISTRY_LIMITS.namespaceLength)}`;
    assert.ok(parseRegistryReference(`${longest}/redis`));
    assert.equal(parseRegistryReference(`${longest}a/redis`), undefined);
  });
});

describe("the [registries] table", () => {
  test("the short and the table form; kiln.toml's typos and unknown keys are refused", () => {
    const registries = parseConfigRegistries(
      '[registries]\n"@acme" = "https://r.test/{name}.json"\n\n[registries."@secure"]\nurl = "https://s.test/r/{name}.json"\nheaders = { Authorization = "Bearer ${SECURE_TOKEN}" }\n',
    );
    assert.deepEqual(
      registries.map((entry) => [entry.namespace, entry.url, entry.headers]),
      [
        ["@acme", "https://r.test/{name}.json", {}],
        ["@secure", "https://s.test/r/{name}.json", { Authorization: "Bearer ${SECURE_TOKEN}" }],
      ],
    );
    assert.throws(
      () =>
        parseConfigRegistries(
          '[registries."@a"]\nurl = "https://r.test/{name}.json"\nheader = {}\n',
        ),
      /line 3: unknown key `header` in \[registries\."@a"\]; did you mean `headers`\?/,
    );
  });

  test("each value is checked: namespace, URL scheme and {name}, @kiln reserved", () => {
    const refuse = (table: unknown, pattern: RegExp) =>
      assert.throws(() => parseRegistriesTable(table, "kiln.toml"), pattern);
    refuse({ acme: "https://r.test/{name}.json" }, /`acme` in \[registries\] is not a namespace/);
    refuse({ "@acme": "ftp://r.test/{name}.json" }, /must be an http:\/\/ or https:\/\/ URL/);
    refuse({ "@acme": "https://r.test/item.json" }, /has no \{name\}/);
    refuse({ "@kiln": "https://r.test/{name}.json" }, /@kiln is kiln's own registry/);
    refuse({ "@acme": { url: 1 } }, /url must be a string/);
  });

  test("at most 32 headers, names of HTTP's token characters up to 128, values up to 8192 without line breaks", () => {
    const headers = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, at) => [`X-H${at}`, "v"]));
    const table = (value: unknown) => ({
      "@acme": { url: "https://r.test/{name}.json", headers: value },
    });
    assert.equal(
      Object.keys(parseRegistriesTable(table(headers(32)), "f")[0]?.headers ?? {}).length,
      32,
    );
    assert.throws(() => parseRegistriesTable(table(headers(33)), "f"), /more than 32 headers/);
    assert.ok(parseRegistriesTable(table({ ["X".repeat(128)]: "v" }), "f"));
    assert.throws(
      () => parseRegistriesTable(table({ ["X".repeat(129)]: "v" }), "f"),
      /is not a header name/,
    );
    assert.throws(() => parseRegistriesTable(table({ "X Y": "v" }), "f"), /is not a header name/);
    assert.ok(parseRegistriesTable(table({ X: "v".repeat(8192) }), "f"));
    assert.throws(
      () => parseRegistriesTable(table({ X: "v".repeat(8193) }), "f"),
      /longer than 8192/,
    );
    assert.throws(() => parseRegistriesTable(table({ X: "a\r\nHost: evil" }), "f"), /line break/);
  });

  test("variable names: a letter or _, then letters, digits and _, at most 128; ${ must close", () => {
    const table = (value: string) => ({
      "@acme": { url: "https://r.test/{name}.json", headers: { X: value } },
    });
    assert.ok(parseRegistriesTable(table(`\${_${"A".repeat(127)}}`), "f"));
    assert.throws(
      () => parseRegistriesTable(table(`\${_${"A".repeat(128)}}`), "f"),
      /is not a variable/,
    );
    assert.throws(() => parseRegistriesTable(table("${1TOKEN}"), "f"), /is not a variable/);
    assert.throws(() => parseRegistriesTable(table("${A-B}"), "f"), /is not a variable/);
    assert.throws(() => parseRegistriesTable(table("Bearer ${TOKEN"), "f"), /is not closed/);
  });

  test("a URL template is at most 2048 characters", () => {
    const url = (length: number) => `https://r.test/{name}?${"q".repeat(length - 22)}`;
    assert.equal(url(2048).length, 2048);
    assert.ok(parseRegistriesTable({ "@acme": url(2048) }, "f"));
    assert.throws(() => parseRegistriesTable({ "@acme": url(2049) }, "f"), /longer than 2048/);
  });

  test("at most 100 registries in one file", () => {
    const table = (count: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, at) => [`@r${at}`, "https://r.test/{name}.json"]),
      );
    assert.equal(parseRegistriesTable(table(100), "f").length, 100);
    assert.throws(() => parseRegistriesTable(table(101), "f"), /more than 100 registries/);
  });

  test("the project's entry for a namespace wins over the user's", () => {
    const user = { ...registry("https://user.test/{name}.json"), from: "config.toml" };
    const own = registry("https://project.test/{name}.json");
    const other = { ...registry("https://o.test/{name}.json"), namespace: "@other" };
    const merged = mergeRegistries([user, other], [own]);
    assert.equal(merged.get("@acme")?.url, "https://project.test/{name}.json");
    assert.equal(merged.get("@other")?.url, "https://o.test/{name}.json");
  });
});

describe("expansion and redaction", () => {
  test("${VAR} expands from the environment; an unset one names itself and the registry", () => {
    const used = new Set<string>();
    const config = registry("https://r.test/{name}.json");
    assert.equal(
      expandVariables("Bearer ${T}", config, env({ T: "abc123" }), used),
      "Bearer abc123",
    );
    assert.deepEqual([...used], ["abc123"]);
    assert.throws(
      () => expandVariables("Bearer ${MISSING}", config, env({})),
      /^KilnError: the registry @acme uses \$\{MISSING\}, which is not set$/,
    );
    // only ${NAME}: a lone $ is text
    assert.equal(expandVariables("a$b $T", config, env({ T: "x" })), "a$b $T");
  });

  test("an expanded header value with a line break or over 8192 characters is refused, the value never named", () => {
    const config = registry("https://r.test/{name}.json");
    checkExpandedHeader("Authorization", "Bearer ok", config);
    assert.throws(
      () => checkExpandedHeader("Authorization", "Bearer se\r\ncret", config),
      (error: Error) =>
        error.message ===
        "the header Authorization of the registry @acme holds a line break or NUL once its variables are expanded - kiln does not send it",
    );
    assert.throws(() => checkExpandedHeader("X", "v".repeat(8193), config), /longer than 8192/);
  });

  test("{name} and {version}: a pin on a template without {version} fetches <name>@<version>", () => {
    assert.equal(
      fillTemplate("https://r.test/{name}.json", "redis", "1.2.0"),
      "https://r.test/redis@1.2.0.json",
    );
    assert.equal(
      fillTemplate("https://r.test/{name}/{version}.json", "redis", "1.2.0"),
      "https://r.test/redis/1.2.0.json",
    );
    assert.equal(
      indexTemplate(registry("https://r.test/r/{name}.json")),
      "https://r.test/r/registry.json",
    );
    assert.equal(
      indexTemplate({
        ...registry("https://r.test/{name}/{version}.json"),
        index: "https://r.test/i.json",
      }),
      "https://r.test/i.json",
    );
    assert.throws(
      () => indexTemplate(registry("https://r.test/{name}/{version}.json")),
      (error: Error & { detail?: string }) =>
        /cannot tell where its index is/.test(error.message) &&
        /set its index/.test(error.detail ?? ""),
    );
  });

  test("a URL as shown: user name and password, and a query value from a variable, are ***", () => {
    const values = env({ PASS: "s3cret", HOST: "r.test", Q: "tok" });
    assert.equal(
      displayUrl("https://me:${PASS}@${HOST}/r/{name}.json?token=${Q}&x=1", values),
      "https://***@r.test/r/{name}.json?token=***&x=1",
    );
    assert.equal(displayUrl("https://${UNSET}/r.json", values), "https://${UNSET}/r.json");
  });

  test("redaction replaces every secret, the longest first", () => {
    assert.equal(
      redactSecrets("sent Bearer abc123 and abc123456", ["abc123", "abc123456", "Bearer abc123"]),
      "sent *** and ***",
    );
  });
});

describe("the index and the lock", () => {
  const digest = `sha256:${"a".repeat(64)}`;
  test("an index is read by its shape and digests; an item not in it names the ones there are", () => {
    const index = parseRegistryIndex(
      JSON.stringify({ name: "acme", items: [{ name: "redis", version: "1.2.0", digest }] }),
      "@acme",
    );
    assert.equal(indexEntry(index, "@acme", "redis").version, "1.2.0");
    assert.throws(() => indexEntry(index, "@acme", "redi"), /has no item `redi`/);
    assert.throws(
      () =>
        parseRegistryIndex(
          JSON.stringify({ name: "a", items: [{ name: "r", version: "1", digest: "md5:x" }] }),
          "@a",
        ),
      (error: Error & { detail?: string }) =>
        /is not a valid registry index/.test(error.message) &&
        /digest is not sha256/.test(error.detail ?? ""),
    );
  });

  test("a stranger's index with a name no reference could hold, a bad version or an over-long text is refused, naming the entry and the limit", () => {
    const entry = { name: "redis", version: "1.2.0", digest };
    const refusal = (index: object) => {
      try {
        parseRegistryIndex(JSON.stringify(index), "@acme");
      } catch (error) {
        return (error as { detail?: string }).detail ?? "";
      }
      return "accepted";
    };
    // a 5 MB name would make every padded line of `kiln search` 5 MB long
    assert.match(
      refusal({ name: "acme", items: [entry, { ...entry, name: "x".repeat(5_000_000) }] }),
      /^items\[1\]\.name is not an item name/,
    );
    assert.match(refusal({ name: "acme", items: [{ ...entry, name: "Redis Cache" }] }), /name/);
    assert.match(
      refusal({ name: "acme", items: [{ ...entry, version: "1".repeat(65) }] }),
      /^items\[0\]\.version is not a version/,
    );
    assert.match(
      refusal({ name: "acme", items: [{ ...entry, description: "d".repeat(2001) }] }),
      /^items\[0\]\.description is longer than 2000 characters/,
    );
    assert.match(
      refusal({ name: "acme", items: [{ ...entry, title: "t".repeat(201) }] }),
      /^items\[0\]\.title is longer than 200 characters/,
    );
    assert.match(refusal({ name: "a".repeat(129), items: [entry] }), /^name is longer than 128/);
    // at the limits, accepted
    assert.equal(
      refusal({
        name: "acme",
        items: [
          {
            ...entry,
            name: "r".repeat(128),
            title: "t".repeat(200),
            description: "d".repeat(2000),
          },
        ],
      }),
      "accepted",
    );
  });

  test("an index's missing or null texts read as empty, keys kiln does not know are dropped, and a wrong type is refused naming where it is", () => {
    const index = parseRegistryIndex(
      JSON.stringify({
        name: "acme",
        homepage: null,
        extra: 1,
        items: [
          { name: "redis", version: "1.2.0", digest, title: "Redis", category: null, x: [] },
          { name: "pg", version: "2.0.0", digest, description: "PostgreSQL" },
        ],
      }),
      "@acme",
    );
    assert.deepEqual(index, {
      name: "acme",
      homepage: "",
      items: [
        {
          name: "redis",
          category: "",
          title: "Redis",
          description: "",
          version: "1.2.0",
          digest,
        },
        {
          name: "pg",
          category: "",
          title: "",
          description: "PostgreSQL",
          version: "2.0.0",
          digest,
        },
      ],
    });
    const refused = [
      [
        {
          name: "a",
          items: [
            { name: "r", version: "1", digest },
            { name: "s", version: "1", digest, title: 3 },
          ],
        },
        /items\[1\]\.title/,
      ],
      [{ name: "a", items: [{ name: "r", version: null, digest }] }, /items\[0\]\.version/],
      [{ name: "a", items: [{ name: "r", version: "1" }] }, /missing field `digest`/],
      [{ name: "a", items: [[]] }, /items\[0\]/],
      [{ name: "a", homepage: 1, items: [] }, /homepage/],
      [{ name: 1, items: [] }, /name/],
      [{ name: "a", items: {} }, /items/],
    ] as const;
    for (const [json, where] of refused) {
      assert.throws(
        () => parseRegistryIndex(JSON.stringify(json), "@a"),
        (error: Error & { detail?: string }) =>
          /is not a valid registry index/.test(error.message) && where.test(error.detail ?? ""),
        JSON.stringify(json),
      );
    }
  });

  test("an index lists at most 10,000 items", () => {
    const index = (count: number) =>
      JSON.stringify({
        name: "acme",
        items: Array.from({ length: count }, (_, at) => ({
          name: `i${at}`,
          version: "1.0.0",
          digest,
        })),
      });
    assert.equal(parseRegistryIndex(index(10_000), "@acme").items.length, 10_000);
    assert.throws(
      () => parseRegistryIndex(index(10_001), "@acme"),
      (error: Error & { detail?: string }) => /more than 10000 items/.test(error.detail ?? ""),
    );
  });

  test("a lock with a registry's item is format 2 and reads back; one without stays format 1", () => {
    const source = {
      type: "registry",
      registry: "@acme",
      item: "redis",
      version: "1.2.0",
      digest,
    } as const;
    const entry = {
      name: "cache",
      component: "cache/redis",
      reference: "@acme/redis",
      source,
      fingerprint: digest,
      fields: {},
      labels: {},
      namespace: "default",
      files: [],
    };
    assert.equal(lockVersionFor([entry]), 2);
    assert.equal(lockVersionFor([{ source: { type: "builtin", kiln: "0.1.0" } }]), 1);
    const text = serializeLock({ version: 2, components: [entry] });
    assert.match(text, /"version": 2\n/);
    assert.deepEqual(parseLock(text).components[0]?.source, source);
  });
});
