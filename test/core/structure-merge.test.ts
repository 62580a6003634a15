// The merge by structure (src/core/project/structure-merge.ts, yaml-merge.ts, ini-merge.ts) on
// seeded random edits: two sides that change, remove and add different keys of a manifest never
// conflict, and the merge holds exactly both sides' edits; a side left as it was comes back
// byte for byte. Seeded, so every run tries the same edits.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseDocument } from "yaml";
import { mergeIni } from "../../src/core/project/ini-merge.ts";
import {
  MAX_STRUCTURAL_YAML_CHARS,
  mergeByStructure,
} from "../../src/core/project/structure-merge.ts";
import { mergeYaml } from "../../src/core/project/yaml-merge.ts";

/** mulberry32: a small seeded generator. */
function seeded(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api # the API
  namespace: web
  labels:
    app: api
    tier: "backend"
spec:
  replicas: 2
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
        tier: backend
    spec:
      containers:
        - name: api
          image: 'ghcr.io/example/api:1.0.0'
          args: ["--port", "8080"]
          env:
            - name: LOG_LEVEL
              value: info

            - name: REGION
              value: eu
          ports:
            - containerPort: 8080
              protocol: TCP
          volumeMounts:
            - name: data
              mountPath: /data
        - name: sidecar
          image: busybox:1.36
          ports:
            - containerPort: 9100
      volumes:
        - name: data
          emptyDir: {}
`;

type Path = (string | number)[];

/**
 * Every scalar of the manifest that an edit may touch, by its path: not the identity of a list
 * item (a container's `name`, a port's `containerPort`), since changing that makes another item,
 * nor an item of a list of scalars (merged as a set, not by place).
 */
function leaves(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) {
    // a list of scalars is a set: its items have no place to address
    if (value.some((item) => item === null || typeof item !== "object")) return [];
    return value.flatMap((item, index) => leaves(item, [...path, index]));
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => {
      const inList = typeof path.at(-1) === "number";
      if (inList && (key === "name" || key === "containerPort")) return [];
      return leaves(inner, [...path, key]);
    });
  }
  return [path];
}

interface Edit {
  kind: "change" | "remove" | "add";
  path: Path;
  value?: string;
}

/** Applies edits through the Document API, as a user's editor keeps the rest of the text. */
function applied(text: string, edits: readonly Edit[]): string {
  const doc = parseDocument(text);
  for (const edit of edits) {
    if (edit.kind === "remove") doc.deleteIn(edit.path);
    else doc.setIn(edit.path, edit.value);
  }
  return doc.toString({ lineWidth: 0 });
}

/** Random edits of each side: distinct leaves, new keys of their own, never the same place. */
function randomEdits(next: (below: number) => number, round: number) {
  const all = leaves(parseDocument(MANIFEST).toJS());
  const taken = new Set<string>();
  const pick = (): Path => {
    for (;;) {
      const path = all[next(all.length)] as Path;
      if (!taken.has(JSON.stringify(path))) {
        taken.add(JSON.stringify(path));
        return path;
      }
    }
  };
  const side = (name: string): Edit[] =>
    Array.from({ length: 1 + next(4) }, (_, index) => {
      const path = pick();
      const kind = (["change", "remove", "add"] as const)[next(3)] as Edit["kind"];
      if (kind === "add") {
        // a key of its own beside the leaf picked
        return { kind, path: [...path.slice(0, -1), `${name}_${round}_${index}`], value: name };
      }
      return { kind, path, value: `${name}-${round}-${index}` };
    });
  return { ours: side("ours"), theirs: side("theirs") };
}

describe("the merge by structure on seeded random edits", () => {
  test("edits of different keys on the two sides never conflict and equal both edits applied", () => {
    const next = seeded(21);
    for (let round = 0; round < 250; round++) {
      const { ours, theirs } = randomEdits(next, round);
      const oursText = applied(MANIFEST, ours);
      const theirsText = applied(MANIFEST, theirs);
      const context = `round ${round}: ours ${JSON.stringify(ours)}, theirs ${JSON.stringify(theirs)}`;
      const merged = mergeYaml(MANIFEST, oursText, theirsText, "ours");
      assert.ok(merged, `not merged by structure: ${context}`);
      assert.deepEqual(merged.conflicts, [], context);
      const both = parseDocument(applied(MANIFEST, [...ours, ...theirs])).toJS();
      assert.deepEqual(parseDocument(merged.text).toJS(), both, context);
    }
  });

  test("a side left as it was comes back byte for byte, comments, quotes and blank lines with it", () => {
    const next = seeded(5);
    for (let round = 0; round < 100; round++) {
      const { ours } = randomEdits(next, round);
      const oursText = applied(MANIFEST, ours);
      assert.equal(mergeYaml(MANIFEST, oursText, MANIFEST, "theirs")?.text, oursText);
    }
  });
});

describe("when the merge by structure steps aside", () => {
  test("a side with an anchor, one that does not parse, or a file of no known structure: the line merge", () => {
    const anchored = MANIFEST.replace("  replicas: 2\n", "  replicas: &n 2\n");
    assert.equal(mergeYaml(MANIFEST, anchored, MANIFEST, "ours"), undefined);
    assert.equal(mergeYaml(MANIFEST, `${MANIFEST}  bad: [\n`, MANIFEST, "ours"), undefined);
    assert.equal(mergeByStructure("notes.md", "a\n", "b\n", "c\n", "stop"), undefined);
    // spacing the Document API would not write back: the user's formatting is never rewritten
    const spaced = MANIFEST.replace("  replicas: 2\n", "  replicas:    2\n");
    assert.equal(
      mergeYaml(MANIFEST, spaced, MANIFEST.replace("busybox:1.36", "busybox:1.37"), "ours"),
      undefined,
    );
    const lineMerged = mergeByStructure("k.yaml", MANIFEST, spaced, MANIFEST, "stop");
    assert.equal(lineMerged, undefined);
  });

  test("an INI file merges by section and key; a repeated key steps aside", () => {
    const base = "[web]\nweb-1 h=1\n\n[web:vars]\nport=80\n\n[all:children]\nweb\n";
    const ours =
      "[web]\nweb-1 h=1\nweb-2 h=2\n\n[web:vars]\nport=80\n# mine\nuser=me\n\n[all:children]\nweb\ndb\n";
    const theirs = "[web]\nweb-1 h=9\n\n[web:vars]\nport=8080\n\n[all:children]\nweb\ncache\n";
    assert.deepEqual(mergeIni(base, ours, theirs, "ours"), {
      text: "[web]\nweb-1 h=9\nweb-2 h=2\n\n[web:vars]\nport=8080\n# mine\nuser=me\n\n[all:children]\nweb\ncache\ndb\n",
      conflicts: [],
    });
    const conflict = mergeIni(base, base.replace("port=80", "port=81"), theirs, "theirs");
    assert.equal(conflict?.conflicts[0]?.keyPath, "[web:vars] port");
    assert.equal(mergeIni(base, `${base}web\n`, theirs, "ours"), undefined);
  });
});

describe("strangers' YAML: bounded, and read as YAML readers read it", () => {
  /** A ConfigMap of `count` keys; ours and theirs each change one key, far apart. */
  function configMaps(count: number) {
    const lines = Array.from({ length: count }, (_, index) => `  key${index}: value${index}`);
    const base = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n${lines.join("\n")}\n`;
    return {
      base,
      ours: base.replace("  key1: value1\n", "  key1: mine\n"),
      theirs: base.replace("  key2: value2\n", "  key2: upstream\n"),
    };
  }

  test("a mapping of 10,000 keys merges by structure: neighbouring keys changed on each side are no conflict", () => {
    const { base, ours, theirs } = configMaps(10_000);
    assert.ok(base.length < MAX_STRUCTURAL_YAML_CHARS);
    const merged = mergeByStructure("k8s/x-configmap.yaml", base, ours, theirs, "stop");
    // lines 1 and 2 are neighbours: only the merge by structure takes both without a conflict
    assert.deepEqual(merged?.conflicts, []);
    assert.ok(merged?.text.includes("  key1: mine\n  key2: upstream\n"));
  });

  test("a side over the bound gets the line merge: the neighbouring edits conflict as lines", () => {
    const { base, ours, theirs } = configMaps(15_000);
    assert.ok(base.length > MAX_STRUCTURAL_YAML_CHARS);
    assert.equal(mergeByStructure("k8s/x-configmap.yaml", base, ours, theirs, "stop"), undefined);
  });

  test("a key written twice in a mapping steps aside, as YAML readers refuse it", () => {
    const base = "a: 1\nb: 2\n";
    const twice = "a: 1\nb: 2\na: 3\n";
    assert.equal(mergeYaml(base, twice, "a: 1\nb: 4\n", "ours"), undefined);
    assert.equal(mergeYaml(base, "a: 5\nb: 2\n", twice, "ours"), undefined);
  });
});

describe("documents of a multi-document file", () => {
  const deployment = "kind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 2\n";
  const service = "kind: Service\nmetadata:\n  name: api\nspec:\n  port: 80\n";
  const base = `${deployment}---\n${service}`;

  test("a document removed upstream and edited by the user is a conflict named by its kind and name", () => {
    const ours = base.replace("port: 80", "port: 81");
    const theirs = deployment;
    const taken = (pick: "ours" | "theirs" | "base") => mergeYaml(base, ours, theirs, pick);
    assert.deepEqual(
      taken("ours")?.conflicts.map((c) => c.keyPath),
      ["Service/api"],
    );
    assert.equal(taken("ours")?.text, ours);
    assert.equal(taken("theirs")?.text, deployment);
    assert.equal(taken("base")?.text, base);
    assert.match(
      mergeByStructure("k.yaml", base, ours, theirs, "markers")?.text ?? "",
      /^<<<<<<< yours\n---\nkind: Service\n[\s\S]*port: 81\n=======\n>>>>>>> kiln update\n$/m,
    );
  });

  test("a document added upstream goes after the one before it upstream; one the user added stays", () => {
    const extra = "kind: ConfigMap\nmetadata:\n  name: cfg\n";
    const mine = "kind: Secret\nmetadata:\n  name: mine\n";
    const merged = mergeYaml(base, `${base}---\n${mine}`, `${base}---\n${extra}`, "ours");
    assert.equal(merged?.text, `${base}---\n${extra}---\n${mine}`);
  });
});
