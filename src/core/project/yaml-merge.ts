// The three-way merge of a YAML file by its structure (Kubernetes manifests, group vars,
// playbooks, roles): base, ours and theirs parsed with the `yaml` library's Document API, and
// theirs's changes applied to ours's Document, which is written back - so the user's comments,
// key order, quoting and blank lines stay wherever the merge changes nothing. Mappings merge
// key by key; sequences of mappings by an identity key (Kubernetes' strategic-merge keys:
// `name` for containers, env, ports, volumes and volumeMounts, else `containerPort`, `port`,
// `ip`; plays and tasks by `name`), sequences of distinct scalars as sets, other sequences by
// position when no side changed their length. Documents of a multi-document file pair by
// `kind` + `metadata.name`. Different changes to one value are a conflict at its key path.
//
// Not merged here (the caller falls back to the line merge): a side that does not parse, that
// uses anchors, aliases or merge keys (one change would show in several places), or whose text
// the Document API does not write back byte for byte - a user's formatting is never rewritten.
// Pure: runs in the browser too.
import {
  type Document,
  isAlias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  parseAllDocuments,
  stringify,
  type ToStringOptions,
  visit,
  type YAMLMap,
  type YAMLSeq,
  type Node as YamlNode,
} from "yaml";
import {
  type ConflictPick,
  type Entry,
  type EntryRules,
  type KeyConflict,
  mergeEntries,
  uniqueIds,
} from "./tree-merge.ts";

/** The result of a structural merge: the text (each conflict settled by the pick) and conflicts. */
export interface StructuralMerge {
  text: string;
  conflicts: KeyConflict[];
}

/** A value in a Document: a node, or null where a key has no value. */
type Value = YamlNode | null;

/**
 * The ways kiln tries to write a Document back: no line folding, sequences indented or not
 * under their key, flow collections padded or not. The first that gives a side's text back
 * byte for byte is the one the merge writes with.
 */
const WRITE_OPTIONS: ToStringOptions[] = [true, false].flatMap((indentSeq) =>
  [true, false].map((flowCollectionPadding) => ({
    indentSeq,
    flowCollectionPadding,
    lineWidth: 0,
    minContentWidth: 0,
  })),
);

/** The keys that identify an item of a sequence of mappings, in the order they are tried. */
const IDENTITY_KEYS = ["name", "containerPort", "port", "ip"];

interface ParsedSide {
  docs: Document.Parsed[];
  lines: LineCounter;
  options: ToStringOptions;
}

/**
 * How the sides are parsed. The yaml library's own duplicate-key check compares each key of a
 * mapping with every key before it - quadratic: a ConfigMap of 10,000 keys took 3 s to parse,
 * one of 40,000 over 40 s - so it is off, and hasUniqueKeys() does the same check with a set.
 */
const PARSE_OPTIONS = { uniqueKeys: false } as const;

/** Are the keys of every mapping of a Document unique (as the yaml library's check reads them)? */
function hasUniqueKeys(doc: Document.Parsed): boolean {
  let unique = true;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? `${typeof pair.key.value}:${String(pair.key.value)}` : "";
        if (key === "" || seen.has(key)) {
          unique = false;
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return unique;
}

/** Every document of a text, parsed; undefined when one has an error or a key twice. */
function parsedDocuments(text: string, lines?: LineCounter): Document.Parsed[] | undefined {
  const docs = [
    ...parseAllDocuments(text, { ...PARSE_OPTIONS, ...(lines ? { lineCounter: lines } : {}) }),
  ];
  if (docs.some((doc) => doc.errors.length > 0 || !hasUniqueKeys(doc))) return undefined;
  return docs;
}

/** Does a Document use what a structural merge cannot follow: anchors, aliases, merge keys? */
function isPlain(doc: Document.Parsed): boolean {
  let plain = true;
  visit(doc, {
    Node(_, node) {
      if (isAlias(node) || node.anchor !== undefined) {
        plain = false;
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value === "<<") {
        plain = false;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return plain;
}

/** A side parsed, or undefined when it does not parse or is not written back byte for byte. */
function parseSide(text: string): ParsedSide | undefined {
  const lines = new LineCounter();
  const docs = parsedDocuments(text, lines);
  if (docs === undefined || docs.length === 0) return undefined;
  if (docs.some((doc) => !isPlain(doc))) return undefined;
  const options = WRITE_OPTIONS.find(
    (option) => docs.map((doc) => doc.toString(option)).join("") === text,
  );
  return options === undefined ? undefined : { docs, lines, options };
}

/** A value as plain data with sorted keys: equal strings mean equal content. */
function canonical(value: unknown): string {
  const data = isNode(value) ? value.toJSON() : value;
  return JSON.stringify(data, (_, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : inner,
  );
}

function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

/** A value as the text a conflict shows: a scalar as it reads, a collection as block YAML. */
function textOf(value: Value | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return "null";
  if (isScalar(value)) return String(value.value);
  return stringify(value.toJSON(), { lineWidth: 0 }).trimEnd();
}

/** The identity of each document (`kind/metadata.name`), or undefined when one has none. */
function documentId(doc: Document.Parsed): string | undefined {
  const kind = doc.get("kind");
  const name = doc.getIn(["metadata", "name"]);
  return typeof kind === "string" && (typeof name === "string" || typeof name === "number")
    ? `${kind}/${name}`
    : undefined;
}

/** How the items of sequences are identified: by a key of their mappings, as a set, by index. */
type Identity = { key: string } | "set" | "position";

/** The identity the items of all three sequences share (each id unique within its sequence). */
function identityOf(sequences: readonly YAMLSeq[]): Identity {
  const items = sequences.flatMap((sequence) => sequence.items as unknown[]);
  for (const key of IDENTITY_KEYS) {
    const keyed = items.every((item) => isMap(item) && isScalar(item.get(key, true)));
    if (keyed && sequences.every((sequence) => uniqueIds(entriesOf(sequence, { key })))) {
      return { key };
    }
  }
  if (
    items.every(isScalar) &&
    sequences.every((sequence) => uniqueIds(entriesOf(sequence, "set")))
  ) {
    return "set";
  }
  return "position";
}

/** The entries of a sequence under an identity. */
function entriesOf(sequence: YAMLSeq, identity: Identity): Entry<Value>[] {
  return (sequence.items as Value[]).map((item, index) => {
    if (identity === "position") return { id: `[${index}]`, item };
    if (identity === "set")
      return { id: `[${String((item as { value?: unknown })?.value)}]`, item };
    const map = item as YAMLMap;
    return { id: `[${identity.key}=${String(map.get(identity.key))}]`, item };
  });
}

/** A copy of a node of another Document, to be placed in ours. */
function copyOf<T extends Value>(value: T): T {
  return (isNode(value) ? value.clone() : value) as T;
}

/** Walks base, ours and theirs together, changing ours's Document in place. */
class YamlMerger {
  readonly conflicts: KeyConflict[] = [];

  constructor(
    private readonly pick: ConflictPick,
    private readonly oursLines: LineCounter,
    private readonly theirsLines: LineCounter,
  ) {}

  /** The merged value of one place; undefined when it goes (a conflict settled that way). */
  value(base: Value | undefined, ours: Value, theirs: Value, path: string): Value | undefined {
    if (sameValue(ours, theirs)) return ours;
    if (base !== undefined && sameValue(base, theirs)) return ours;
    if (isMap(ours) && isMap(theirs) && (base === undefined || isMap(base))) {
      this.mapping(base ?? undefined, ours, theirs, path);
      return ours;
    }
    if (isSeq(ours) && isSeq(theirs) && (base === undefined || isSeq(base))) {
      if (this.sequence(base ?? undefined, ours, theirs, path)) return ours;
    }
    if (base !== undefined && sameValue(base, ours)) return this.replacing(ours, theirs);
    return this.conflict(path, base, ours, theirs);
  }

  /** Theirs's value in ours's place, keeping the comments and blank line the user had there. */
  private replacing(ours: Value, theirs: Value): Value {
    const copy = copyOf(theirs);
    if (isNode(copy) && isNode(ours)) {
      if (ours.commentBefore !== undefined) copy.commentBefore = ours.commentBefore;
      if (ours.comment !== undefined) copy.comment = ours.comment;
      if (ours.spaceBefore !== undefined) copy.spaceBefore = ours.spaceBefore;
    }
    return copy;
  }

  /** Records a conflict and gives the value the pick takes (undefined: absent on that side). */
  conflict(
    path: string,
    base: Value | undefined,
    ours: Value | undefined,
    theirs: Value | undefined,
  ): Value | undefined {
    this.conflicts.push({
      keyPath: path.trimEnd() || "(the whole document)",
      ours: textOf(ours),
      theirs: textOf(theirs),
      oursLine: lineOf(ours, this.oursLines),
      theirsLine: lineOf(theirs, this.theirsLines),
    });
    if (this.pick === "ours") return ours;
    const taken = this.pick === "theirs" ? theirs : base;
    if (taken === undefined) return undefined;
    return ours === undefined ? copyOf(taken) : this.replacing(ours, taken);
  }

  private mapping(base: YAMLMap | undefined, ours: YAMLMap, theirs: YAMLMap, path: string) {
    const entries = (map: YAMLMap | undefined): Entry<Pair<unknown, Value>>[] =>
      ((map?.items ?? []) as Pair<unknown, Value>[]).map((pair) => ({
        id: String((pair.key as { value: unknown }).value),
        item: pair,
      }));
    // below the root, or right after a document's identity (`Service/api `), no dot
    const at = (id: string) =>
      path === "" || path.endsWith(" ") ? `${path}${id}` : `${path}.${id}`;
    const rules: EntryRules<Pair<unknown, Value>> = {
      adopt: (pair) => pair.clone() as Pair<unknown, Value>,
      same: (a, b) => sameValue(a.value, b.value),
      merge: (basePair, oursPair, theirsPair, id) => {
        const merged = this.value(basePair?.value, oursPair.value, theirsPair.value, at(id));
        if (merged === undefined) return undefined;
        oursPair.value = merged;
        return oursPair;
      },
      settleRemoval: (id, basePair, oursPair, theirsPair) => {
        const value = this.conflict(at(id), basePair.value, oursPair?.value, theirsPair?.value);
        if (value === undefined) return undefined;
        const pair = (oursPair ?? theirsPair ?? basePair).clone() as Pair<unknown, Value>;
        pair.value = value;
        return oursPair === undefined ? pair : Object.assign(oursPair, { value });
      },
    };
    const merged = mergeEntries(entries(base), entries(ours), entries(theirs), rules);
    ours.items = merged.map((entry) => entry.item);
  }

  /** Merges two sequences item by item; false when they cannot be paired (the caller decides). */
  private sequence(base: YAMLSeq | undefined, ours: YAMLSeq, theirs: YAMLSeq, path: string) {
    const identity = identityOf(base ? [base, ours, theirs] : [ours, theirs]);
    if (identity === "position") {
      const length = ours.items.length;
      if (base === undefined || base.items.length !== length || theirs.items.length !== length) {
        return false;
      }
    }
    const rules: EntryRules<Value> = {
      adopt: copyOf,
      same: sameValue,
      merge: (baseItem, oursItem, theirsItem, id) =>
        this.value(baseItem, oursItem, theirsItem, `${path}${id}`),
      settleRemoval: (id, baseItem, oursItem, theirsItem) =>
        this.conflict(`${path}${id}`, baseItem, oursItem, theirsItem),
    };
    const merged = mergeEntries(
      base ? entriesOf(base, identity) : [],
      entriesOf(ours, identity),
      entriesOf(theirs, identity),
      rules,
    );
    ours.items = merged.map((entry) => entry.item);
    return true;
  }
}

/** The 1-based line a value starts on in its side's text; 0 for none. */
function lineOf(value: Value | undefined, lines: LineCounter): number {
  const start = isNode(value) ? value.range?.[0] : undefined;
  return start === undefined ? 0 : lines.linePos(start).line;
}

/**
 * Pairs the documents of the three sides: by `kind/metadata.name` in a file of several, else by
 * position (a file of one document on every side, or documents without those keys).
 */
function documentEntries(sides: readonly ParsedSide[]): Entry<Document.Parsed>[][] | undefined {
  // one document a side: the same document, even when its name changed
  const single = sides.every((side) => side.docs.length === 1);
  const byIdentity = sides.map((side) =>
    side.docs.map((doc) => ({ id: documentId(doc) ?? "", item: doc })),
  );
  const identified = byIdentity.every(
    (entries) => entries.every((e) => e.id !== "") && uniqueIds(entries),
  );
  if (identified && !single) {
    return byIdentity;
  }
  const count = sides[0]?.docs.length;
  if (!sides.every((side) => side.docs.length === count)) return undefined;
  return sides.map((side) => side.docs.map((doc, index) => ({ id: `#${index + 1}`, item: doc })));
}

/**
 * Merges a YAML file by its structure, each conflict settled as `pick` says. Undefined when a
 * side cannot be merged so (see the header): the caller merges it line by line.
 */
export function mergeYaml(
  base: string,
  ours: string,
  theirs: string,
  pick: ConflictPick,
): StructuralMerge | undefined {
  const baseSide = parseSide(base);
  const oursSide = parseSide(ours);
  const theirsSide = parseSide(theirs);
  if (!baseSide || !oursSide || !theirsSide) return undefined;
  const entries = documentEntries([baseSide, oursSide, theirsSide]);
  if (!entries) return undefined;
  const [baseDocs, oursDocs, theirsDocs] = entries as [
    Entry<Document.Parsed>[],
    Entry<Document.Parsed>[],
    Entry<Document.Parsed>[],
  ];
  const merger = new YamlMerger(pick, oursSide.lines, theirsSide.lines);
  const several = [baseSide, oursSide, theirsSide].some((side) => side.docs.length > 1);
  const rules: EntryRules<Document.Parsed> = {
    adopt: (doc) => doc,
    same: (a, b) => sameValue(a.contents, b.contents),
    merge: (baseDoc, oursDoc, theirsDoc, id) => {
      // a path inside a named document reads `Service/api spec.ports[port=80].targetPort`
      const prefix = several ? `${id} ` : "";
      const contents = merger.value(
        baseDoc?.contents,
        oursDoc.contents,
        theirsDoc.contents,
        prefix,
      );
      if (contents === undefined) return undefined;
      oursDoc.contents = contents as typeof oursDoc.contents;
      return oursDoc;
    },
    settleRemoval: (id, baseDoc, oursDoc, theirsDoc) => {
      const kept = merger.conflict(
        several ? id : "",
        baseDoc.contents,
        oursDoc?.contents,
        theirsDoc?.contents,
      );
      if (kept === undefined) return undefined;
      // the whole document of the side taken
      return pick === "ours" ? oursDoc : pick === "theirs" ? theirsDoc : baseDoc;
    },
  };
  const merged = mergeEntries(baseDocs, oursDocs, theirsDocs, rules).map((entry) => entry.item);
  const text = merged
    .map((doc, index) => {
      // a document placed after another needs its `---` to start
      if (index > 0 && doc.directives) doc.directives.docStart = true;
      return doc.toString(oursSide.options);
    })
    .join("");
  // what kiln writes must read back as YAML; otherwise the line merge decides
  if (parsedDocuments(text) === undefined) return undefined;
  return { text, conflicts: merger.conflicts };
}
