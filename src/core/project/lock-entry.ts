// A component's entry in kiln.lock, built from what kiln has just rendered: the CLI builds it
// when it writes (add, setup, update), the dashboard when it zips a project - and both must give
// the same bytes, since the zip is `kiln setup` of the same preset. So everything that shapes
// those bytes is here, pure, but for the codec (hashing and compressing), which is the caller's:
// Node's crypto and zlib in the CLI (src/node/lock-compression.ts); in the browser a sha256 library
// and the bases the service compressed with that same Node code (POST /api/lock/bases).
import type { RenderInput } from "../context.ts";
import { DEFAULT_AUTOMATION_PROFILE } from "../context.ts";
import type { PlannedFile } from "../plan.ts";
import type { AutomationProfile } from "../vocabulary.ts";
import { MAX_VENDORED_FILE_BYTES } from "./file-outcomes.ts";
import { pathInside } from "./layout.ts";
import {
  canonicalJson,
  emptyLock,
  type Lock,
  type LockedComponent,
  type LockedDependency,
  type LockedFile,
  type LockSource,
  lockFileError,
  recordComponent,
  urlForLock,
} from "./lock-format.ts";
import type { PresetComponent } from "./preset-manifest.ts";
import { componentInput } from "./render-components.ts";

/** Hex sha256 of a text's UTF-8 bytes. */
export type Sha256Hex = (text: string) => string;

/** How a lock's bytes are made: sha256 and a file's compressed base (raw DEFLATE, base64). */
export interface LockCodec {
  sha256: Sha256Hex;
  encodeBase: (content: string) => string;
}

/**
 * The content a lock's `base` holds (`decode`: base64 and inflate, undefined past
 * MAX_VENDORED_FILE_BYTES), checked against its recorded hash before anything uses it: a lock
 * edited by hand, or made elsewhere, is refused rather than merged against the wrong base.
 * `component` names the file's component in the error, with the way out for that file.
 */
export function decodeBase(
  file: LockedFile,
  sha256: Sha256Hex,
  decode: (base: string) => string | undefined,
  component?: { name: string },
): string {
  const refused = (problem: string) =>
    lockFileError(
      `: the recorded content of \`${file.path}\`${component ? ` (component \`${component.name}\`)` : ""} ${problem}`,
      component
        ? `or take one side for that file - \`kiln update ${component.name} --theirs\` writes the new render, \`--ours\` keeps yours - and the lock records a new base for it`
        : undefined,
    );
  let text: string | undefined;
  try {
    text = decode(file.base);
  } catch {
    throw refused("cannot be read");
  }
  if (text === undefined) {
    throw refused(
      `inflates to more than ${MAX_VENDORED_FILE_BYTES / 1024 / 1024} MiB, kiln's limit for one file`,
    );
  }
  if (sha256(text) !== file.sha256) throw refused("does not match its hash");
  return text;
}

/**
 * Fingerprints by item object: a preset names one item for many components (multi-tier-platform:
 * 35 components, 11 items), and its canonical JSON (templates included) is the costly part.
 * Items are not changed once parsed; every Sha256Hex gives the same digest.
 */
const fingerprints = new WeakMap<object, string>();

/** `sha256:<hex>` of the item's canonical JSON. */
export function itemFingerprint(item: object, sha256: Sha256Hex): string {
  let fingerprint = fingerprints.get(item);
  if (fingerprint === undefined) {
    fingerprint = `sha256:${sha256(canonicalJson(item))}`;
    fingerprints.set(item, fingerprint);
  }
  return fingerprint;
}

/**
 * One file as the lock records it: its path from the project root, hash and base. A file the
 * lock already records with the same content keeps its recorded base (one an older kiln wrote
 * stays as it is: the lock must not change when nothing did), and is not compressed again.
 */
export function lockedFile(
  path: string,
  content: string,
  template: number,
  codec: LockCodec,
  old?: LockedFile,
): LockedFile {
  const hash = codec.sha256(content);
  const base = old !== undefined && old.sha256 === hash ? old.base : codec.encodeBase(content);
  return { path, sha256: hash, base, template };
}

/** What the lock records of a component's registry item. */
export interface ItemRecord {
  /** The item's `category/name`. */
  component: string;
  source: LockSource;
  /** The item's fingerprint (itemFingerprint). */
  fingerprint: string;
}

export interface RenderedForLock extends ItemRecord {
  /** The reference as typed. */
  reference: string;
  input: RenderInput;
  /** The rendered files with their paths from the project root, in the item's file order. */
  files: readonly PlannedFile[];
  /** What its item's dependencies resolved to; absent keeps what `old` records (an update). */
  dependencies?: LockedDependency[] | undefined;
}

/** The lock entry of a component kiln has just rendered and is writing. */
export function lockEntry(
  rendered: RenderedForLock,
  codec: LockCodec,
  old?: LockedComponent,
): LockedComponent {
  const { input } = rendered;
  const fields = input.fields ?? {};
  const namespace = fields.namespace ?? input.defaultNamespace;
  const profile = input.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  const oldFiles = new Map(old?.files.map((file) => [file.path, file]));
  return {
    name: input.name,
    component: rendered.component,
    reference: /^https?:\/\//.test(rendered.reference)
      ? urlForLock(rendered.reference)
      : rendered.reference,
    source: rendered.source,
    fingerprint: rendered.fingerprint,
    fields: { ...fields },
    labels: { ...input.labels },
    namespace,
    automationProfile: profile === DEFAULT_AUTOMATION_PROFILE ? undefined : profile,
    // an update or rename keeps the component's place in the project's order
    order: old?.order,
    dependencies: rendered.dependencies ?? old?.dependencies,
    files: rendered.files.map((file, index) =>
      lockedFile(file.path, file.content, index, codec, oldFiles.get(file.path)),
    ),
  };
}

/**
 * `codec`, with each distinct text hashed and compressed once: a preset's files repeat - every
 * role's defaults, handlers and meta files are the same bytes (39 of multi-tier-platform's 77
 * files are 3 texts) - and the same text always gives the same hash and base, while each
 * compression costs the CLI about 60 us of CPU (zlib's stream set up for every call).
 */
export function rememberingRepeats(codec: LockCodec): LockCodec {
  const hashes = new Map<string, string>();
  const bases = new Map<string, string>();
  return {
    sha256: (text) => rememberedIn(hashes, text, codec.sha256),
    encodeBase: (content) => rememberedIn(bases, content, codec.encodeBase),
  };
}

/** `make(text)`, remembered in `known` by its text. */
export function rememberedIn(
  known: Map<string, string>,
  text: string,
  make: (text: string) => string,
): string {
  let value = known.get(text);
  if (value === undefined) {
    value = make(text);
    known.set(text, value);
  }
  return value;
}

/** A component of a project being set up, with its rendered files (paths in the output folder). */
export interface SetUpComponent {
  component: PresetComponent;
  item: ItemRecord;
  files: readonly PlannedFile[];
  /** What its item's dependencies resolved to (`kiln setup`); absent when it declares none. */
  dependencies?: LockedDependency[] | undefined;
}

/**
 * The kiln.lock of a project set up from a preset - by `kiln setup`, or zipped by the dashboard:
 * every component with its values (as setup renders them: the preset's namespace and automation
 * profile) and its files under the output folder, in one lock.
 */
export function setupLock(
  components: readonly SetUpComponent[],
  settings: { outputDir: string; defaultNamespace: string; automationProfile?: AutomationProfile },
  lockCodec: LockCodec,
): Lock {
  const codec = rememberingRepeats(lockCodec);
  let lock = emptyLock();
  for (const { component, item, files, dependencies } of components) {
    const entry = lockEntry(
      {
        reference: component.reference,
        ...item,
        input: componentInput(component, settings.defaultNamespace, settings.automationProfile),
        files: files.map((file) => ({
          path: pathInside(settings.outputDir, file.path),
          content: file.content,
        })),
        dependencies,
      },
      codec,
    );
    lock = recordComponent(lock, entry);
  }
  return lock;
}
