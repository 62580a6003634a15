// The template engine: the only module that knows which Jinja implementation kiln uses.
//
// Templates come from URLs and files anyone can write, so rendering is a sandbox:
// - MiniJinja (compiled to WASM, the `minijinja-js` package) sees only the plain data we pass
//   in, never JS objects, prototypes, `process`, the file system or the network;
// - CPU is bounded by MiniJinja's fuel, recursion by MiniJinja's own depth limit;
// - memory is bounded by giving the WASM memory a maximum (see `capWasmMemory`), because WASM
//   memory lies outside V8's heap limits and a string bomb would otherwise take gigabytes;
// - a WASM trap (a panic inside MiniJinja, or memory exhausted) leaves that instance corrupt,
//   so the engine throws it away and builds a fresh one for the next render.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as util from "node:util";
import { errorMessage, KilnError } from "../core/errors.ts";
import { KILN_FILTERS, safeFilter } from "../core/filters.ts";
import type { RenderScope, TemplateRenderer } from "../core/render-item.ts";
import "./node-libraries.ts";

export interface EngineLimits {
  /** MiniJinja fuel per render: roughly the number of instructions a template may run. */
  fuel: number;
  /** Upper bound of the WASM linear memory in bytes (rounded up to 64 KiB pages). */
  memoryBytes: number;
  /** How many compiled templates to keep; older ones are compiled again when needed. */
  cacheSize: number;
}

export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  fuel: 5_000_000,
  memoryBytes: 256 * 1024 * 1024,
  cacheSize: 512,
};

/** The subset of minijinja-js's `Environment` that kiln uses. */
interface MiniJinjaEnvironment {
  addTemplate(name: string, source: string): void;
  removeTemplate(name: string): void;
  renderTemplate(name: string, ctx: unknown): string;
  renderStr(source: string, ctx: unknown): string;
  addFilter(name: string, func: (...args: unknown[]) => unknown): void;
  removeGlobal(name: string): void;
  debug: boolean;
  keepTrailingNewline: boolean;
  undefinedBehavior: string;
  fuel: number | undefined;
  free(): void;
}

interface MiniJinjaModule {
  Environment: new () => MiniJinjaEnvironment;
}

const WASM_PAGE = 64 * 1024;
/** The most fuel minijinja-js 2.11 honours: from 2^31 + 1 up, every render runs out at once. */
export const MAX_FUEL = 2 ** 31;

/**
 * Returns a copy of a WASM binary whose (single, defined) memory gets a maximum size.
 *
 * Written by hand because no library edits a WASM module's limits, and the edit is small: the
 * memory section (id 5) holds `count, flags, min[, max]` as LEB128 numbers; flags 0 means "no
 * maximum". We rewrite the section with flags 1 and the given maximum.
 */
export function capWasmMemory(wasm: Uint8Array, maxPages: number): Uint8Array<ArrayBuffer> {
  const readLeb = (at: number): [number, number] => {
    let value = 0;
    let shift = 0;
    let pos = at;
    for (;;) {
      const byte = wasm[pos++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return [value, pos];
    }
  };
  const leb = (value: number): number[] => {
    const out: number[] = [];
    let rest = value;
    do {
      let byte = rest & 0x7f;
      rest = Math.floor(rest / 128);
      if (rest > 0) byte |= 0x80;
      out.push(byte);
    } while (rest > 0);
    return out;
  };
  let pos = 8; // magic + version
  while (pos < wasm.length) {
    const id = wasm[pos] as number;
    const [size, bodyStart] = readLeb(pos + 1);
    const bodyEnd = bodyStart + size;
    if (id === 5) {
      const [count, afterCount] = readLeb(bodyStart);
      const flags = wasm[afterCount] as number;
      if (count !== 1 || flags !== 0) {
        throw new Error("unexpected WASM memory section: expected one memory without a maximum");
      }
      const [minPages] = readLeb(afterCount + 1);
      const body = [...leb(1), 0x01, ...leb(minPages), ...leb(Math.max(maxPages, minPages))];
      const section = [5, ...leb(body.length), ...body];
      const out = new Uint8Array(wasm.length - (bodyEnd - pos) + section.length);
      out.set(wasm.subarray(0, pos), 0);
      out.set(section, pos);
      out.set(wasm.subarray(bodyEnd), pos + section.length);
      return out;
    }
    pos = bodyEnd;
  }
  throw new Error("WASM module has no memory section");
}

const require = createRequire(import.meta.url);
/**
 * Where minijinja-js's glue is, looked up when the engine is first needed: resolving it walks
 * node_modules (a dozen file lookups), which a run on the compiled path never needs.
 */
let glueFile: string | undefined;
function gluePath(): string {
  glueFile ??= require.resolve("minijinja-js/dist/node/minijinja_js.js");
  return glueFile;
}
/** The glue's text, read on the first engine's first render (a run on the compiled path never). */
let glueText: string | undefined;
function glueSource(): string {
  glueText ??= readFileSync(gluePath(), "utf8");
  return glueText;
}
const compiledModules = new Map<number, WebAssembly.Module>();

/** The compiled, memory-capped WASM module; compiled once per process and per cap. */
function wasmModule(maxPages: number): WebAssembly.Module {
  let compiled = compiledModules.get(maxPages);
  if (!compiled) {
    const original = readFileSync(join(dirname(gluePath()), "minijinja_js_bg.wasm"));
    compiled = new WebAssembly.Module(capWasmMemory(original, maxPages));
    compiledModules.set(maxPages, compiled);
  }
  return compiled;
}

/**
 * Loads a fresh, independent instance of minijinja-js's Node glue code around our capped module.
 *
 * The glue is CommonJS that reads its `.wasm` from disk when evaluated and keeps its state in
 * module scope; evaluating it with our own `require` lets us hand it the capped module and get
 * a new instance whenever the previous one trapped. Its `console` is silenced: MiniJinja's panic
 * hook would otherwise print Rust panics to stderr.
 */
function loadMiniJinja(maxPages: number): MiniJinjaModule {
  const mod = { exports: {} as Record<string, unknown> };
  const compiled = wasmModule(maxPages);
  const glueRequire = (id: string): unknown => {
    if (id === "util") return util;
    if (id === "path") return { join: () => "minijinja_js_bg.wasm" };
    if (id === "fs") return { readFileSync: () => new Uint8Array(0) };
    throw new Error(`minijinja-js glue asked for unexpected module ${id}`);
  };
  const silentConsole = { ...console, error: () => {}, warn: () => {}, log: () => {} };
  // The glue builds its module with `new WebAssembly.Module(bytes)`; hand it ours instead.
  const wasmShim = Object.create(WebAssembly, {
    Module: {
      value: function CappedModule() {
        return compiled;
      },
    },
  });
  const run = new Function(
    "module",
    "exports",
    "require",
    "__dirname",
    "console",
    "WebAssembly",
    fasterGlue(glueSource()),
  );
  run(mod, mod.exports, glueRequire, dirname(gluePath()), silentConsole, wasmShim);
  return mod.exports as unknown as MiniJinjaModule;
}

/**
 * Four of the glue's functions, written for fewer slow calls: every value that crosses between
 * WASM and JavaScript (each context value, each filter argument and result) goes through them,
 * tens of thousands of times for a large inventory. Measured in a profile, they
 * were the largest JavaScript costs of a render:
 * - `getDataViewMemory0` read `wasm.memory.buffer` (a call into the engine's C++ side) on
 *   every use to see whether the memory had grown; the glue's Uint8Array view already notices
 *   that (its length drops to 0 when memory grows), so the DataView is renewed with it.
 * - `getStringFromWasm0` decoded every string with TextDecoder, a C++ call that costs far more
 *   than the few characters of a name or an address; short ASCII strings are built in
 *   JavaScript, four characters a call (about 90 ns for a host name against TextDecoder's 170;
 *   a `fromCharCode.apply` over a subarray measured 280), everything else is decoded as before
 *   (so invalid UTF-8 still throws).
 * - `__wbindgen_number_get` and `__wbindgen_string_get` (every number and string the engine
 *   reads from JavaScript: context values, filter results) fetched the DataView twice; once
 *   now (about 5 ms less CPU for a 10,000-host inventory, 3 A/B pairs).
 * Each replacement applies only when the glue holds exactly the original text (minijinja-js is
 * pinned); otherwise the glue runs unchanged. test/core/engine-crossings.test.ts checks that
 * all of them apply.
 */
const GLUE_REPLACEMENTS: readonly [original: string, faster: string][] = [
  [
    `function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}`,
    `let cachedDataViewSource = null;
function getDataViewMemory0() {
    const bytes = getUint8ArrayMemory0();
    if (cachedDataViewSource !== bytes) {
        cachedDataViewMemory0 = new DataView(bytes.buffer);
        cachedDataViewSource = bytes;
    }
    return cachedDataViewMemory0;
}`,
  ],
  [
    `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return cachedTextDecoder.decode(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`,
    `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const bytes = getUint8ArrayMemory0();
    const end = ptr + len;
    if (len <= 64) {
        let text = "";
        let at = ptr;
        for (; at + 4 <= end; at += 4) {
            const a = bytes[at], b = bytes[at + 1], c = bytes[at + 2], d = bytes[at + 3];
            if ((a | b | c | d) > 0x7f) break;
            text += String.fromCharCode(a, b, c, d);
        }
        for (; at < end; at++) {
            const a = bytes[at];
            if (a > 0x7f) break;
            text += String.fromCharCode(a);
        }
        if (at === end) return text;
    }
    return cachedTextDecoder.decode(bytes.subarray(ptr, end));
}`,
  ],
  [
    `module.exports.__wbindgen_number_get = function(arg0, arg1) {
    const obj = getObject(arg1);
    const ret = typeof(obj) === 'number' ? obj : undefined;
    getDataViewMemory0().setFloat64(arg0 + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
    getDataViewMemory0().setInt32(arg0 + 4 * 0, !isLikeNone(ret), true);
};`,
    `module.exports.__wbindgen_number_get = function(arg0, arg1) {
    const obj = getObject(arg1);
    const view = getDataViewMemory0();
    if (typeof obj === 'number') {
        view.setFloat64(arg0 + 8, obj, true);
        view.setInt32(arg0, 1, true);
    } else {
        view.setFloat64(arg0 + 8, 0, true);
        view.setInt32(arg0, 0, true);
    }
};`,
  ],
  [
    `module.exports.__wbindgen_string_get = function(arg0, arg1) {
    const obj = getObject(arg1);
    const ret = typeof(obj) === 'string' ? obj : undefined;
    var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_export_0, wasm.__wbindgen_export_1);
    var len1 = WASM_VECTOR_LEN;
    getDataViewMemory0().setInt32(arg0 + 4 * 1, len1, true);
    getDataViewMemory0().setInt32(arg0 + 4 * 0, ptr1, true);
};`,
    `module.exports.__wbindgen_string_get = function(arg0, arg1) {
    const obj = getObject(arg1);
    let ptr1 = 0;
    let len1 = 0;
    if (typeof obj === 'string') {
        ptr1 = passStringToWasm0(obj, wasm.__wbindgen_export_0, wasm.__wbindgen_export_1);
        len1 = WASM_VECTOR_LEN;
    }
    const view = getDataViewMemory0();
    view.setInt32(arg0 + 4, len1, true);
    view.setInt32(arg0, ptr1, true);
};`,
  ],
];

/** The glue with GLUE_REPLACEMENTS applied where its text matches exactly. */
function fasterGlue(source: string): string {
  let out = source;
  for (const [original, faster] of GLUE_REPLACEMENTS) {
    if (out.split(original).length === 2) out = out.replace(original, () => faster);
  }
  return out;
}

/** How many of GLUE_REPLACEMENTS apply to the installed glue (for tests). */
export function fasterGlueApplied(): number {
  const glue = fasterGlue(glueSource());
  return GLUE_REPLACEMENTS.filter(([, faster]) => glue.includes(faster)).length;
}

/** Turns a MiniJinja error into the one-line engine message (no source excerpt). */
function engineMessage(error: unknown): string {
  if (error instanceof WebAssembly.RuntimeError) {
    return `template engine failure: ${error.message} (a limit was hit or the template triggered an engine bug)`;
  }
  const text = errorMessage(error);
  return text.split("\n", 1)[0] as string;
}

/**
 * Where templates are compiled and rendered: the engine's shared environment (trusted
 * templates, kept compiled across renders) or a fresh environment for one render (isolated).
 */
interface Scope {
  env: MiniJinjaEnvironment;
  /** Templates compiled in `env` by name, in least-recently-used order, with their source. */
  compiled: Map<string, string>;
}

const SHARED: RenderScope = { isolated: false };

/**
 * A sandboxed Jinja renderer with Jinja semantics as MiniJinja 2 has them: undefined values
 * print as "", iterate as empty and chain (`missing.attr`); trailing newlines are kept; maps
 * iterate in key order; no auto-escaping. MiniJinja's `debug()` global is removed: it lists
 * every template of its environment and the whole context.
 */
export class TemplateEngine implements TemplateRenderer {
  readonly limits: EngineLimits;
  private shared: Scope | undefined;
  /**
   * A fresh environment of the current instance that no render has used yet, made ahead of
   * time (`prepareIsolated`) for the next isolated render: the same as one made when it starts.
   */
  private spare: MiniJinjaEnvironment | undefined;
  /** The loaded minijinja-js instance (one WASM instance); replaced after a trap. */
  private module: MiniJinjaModule | undefined;
  /** `renderAll` calls answered with one conversion of the context (for tests, diagnostics). */
  combinedRenders = 0;

  constructor(limits: Partial<EngineLimits> = {}) {
    this.limits = { ...DEFAULT_ENGINE_LIMITS, ...limits };
    // measured: larger fuel wraps around inside minijinja-js and fails every render
    if (
      !Number.isInteger(this.limits.fuel) ||
      this.limits.fuel < 1 ||
      this.limits.fuel > MAX_FUEL
    ) {
      throw new RangeError(`template engine fuel must be a whole number from 1 to ${MAX_FUEL}`);
    }
  }

  /** A new environment with kiln's settings and filters, in the current WASM instance. */
  private newEnvironment(): MiniJinjaEnvironment {
    this.module ??= loadMiniJinja(Math.ceil(this.limits.memoryBytes / WASM_PAGE));
    const env = new this.module.Environment();
    env.debug = false; // with debug on, error messages include variable values
    env.keepTrailingNewline = true;
    env.undefinedBehavior = "chainable";
    env.fuel = this.limits.fuel;
    // `debug()` prints the environment (every template name) and the whole context
    env.removeGlobal("debug");
    for (const [name, filter] of Object.entries(KILN_FILTERS))
      env.addFilter(name, safeFilter(filter));
    return env;
  }

  /** The shared scope, or a fresh one for an isolated render (the caller frees it). */
  private open(scope: RenderScope): Scope {
    if (scope.isolated) {
      // used once, by this render alone, and freed after it, as a new one would be
      const env = this.spare ?? this.newEnvironment();
      this.spare = undefined;
      return { env, compiled: new Map() };
    }
    this.shared ??= { env: this.newEnvironment(), compiled: new Map() };
    return this.shared;
  }

  /**
   * Loads the WASM instance and makes the environment the next isolated render will use, so
   * that render does not wait for either: a worker that renders only strangers' items (the
   * CLI's) does this while its caller is still reading the item.
   */
  prepareIsolated(): void {
    this.spare ??= this.newEnvironment();
  }

  /** Frees an isolated scope's environment; the shared one stays. */
  private close(scope: Scope): void {
    if (scope === this.shared) return;
    try {
      scope.env.free();
    } catch {
      // an instance that trapped is thrown away whole (discard)
    }
  }

  /**
   * Renders `source` with `context`. `name` identifies the template in error messages; it must
   * not end in an extension that turns on auto-escaping, so it is suffixed with ".jinja".
   */
  render(
    name: string,
    source: string,
    context: Record<string, unknown>,
    scope: RenderScope = SHARED,
  ): string {
    let opened: Scope | undefined;
    try {
      opened = this.open(scope);
      return this.renderIn(opened, name, source, context);
    } catch (error) {
      this.afterError(error);
      throw new KilnError("internal", engineMessage(error));
    } finally {
      if (opened) this.close(opened);
    }
  }

  /**
   * `render` in the shared environment with `fuel` in place of the engine's own, for this render
   * only: how a test finds a template's real fuel use (a binary search on the fuel) without a new
   * environment per fuel, which costs milliseconds (its filters are added one by one).
   */
  renderWithFuel(
    fuel: number,
    name: string,
    source: string,
    context: Record<string, unknown>,
  ): string {
    if (!Number.isInteger(fuel) || fuel < 1 || fuel > MAX_FUEL) {
      throw new RangeError(`template engine fuel must be a whole number from 1 to ${MAX_FUEL}`);
    }
    const shared = this.open(SHARED);
    shared.env.fuel = fuel;
    try {
      return this.render(name, source, context);
    } finally {
      // a trap took the environment with it; a new one starts with the engine's fuel
      if (this.shared === shared) shared.env.fuel = this.limits.fuel;
    }
  }

  private renderIn(
    scope: Scope,
    name: string,
    source: string,
    context: Record<string, unknown>,
  ): string {
    const templateName = `${name}.jinja`;
    this.register(scope, templateName, source);
    return scope.env.renderTemplate(templateName, context);
  }

  /** After a WASM trap or panic the instance is corrupt: the next render builds a new one. */
  private afterError(error: unknown): void {
    if (error instanceof WebAssembly.RuntimeError || isWasmPanic(error)) this.discard();
  }

  /**
   * Renders several templates with one context, each exactly as `render` would. Converting a
   * context into WASM is a large part of a render (a 200-host inventory: about 0.8 ms of 5 ms),
   * so it is done once: one wrapper template includes them all, each inside `{% with %}` so
   * that a `{% set %}` or macro of one stays out of the next, with a separator no template can
   * know between them. Anything unusual (an error, a separator in the output, a name that
   * does not fit in a string literal) renders them one by one instead, which gives every
   * error its own template's name and message, as `render` does.
   */
  renderAll(
    templates: readonly { name: string; source: string }[],
    context: Record<string, unknown>,
    scope: RenderScope = SHARED,
  ): string[] {
    let opened: Scope | undefined;
    try {
      opened = this.open(scope);
      const combined = this.renderCombined(opened, templates, context);
      if (combined) return combined;
      // one by one, in the same scope, so each error names its own template
      const own = opened;
      return templates.map(({ name, source }) => this.renderIn(own, name, source, context));
    } catch (error) {
      this.afterError(error);
      throw new KilnError("internal", engineMessage(error));
    } finally {
      if (opened) this.close(opened);
    }
  }

  /** `renderAll` with one conversion of the context; undefined when it must go one by one. */
  private renderCombined(
    scope: Scope,
    templates: readonly { name: string; source: string }[],
    context: Record<string, unknown>,
  ): string[] | undefined {
    if (templates.length < 2 || !templates.every(({ name }) => PLAIN_NAME.test(name))) {
      return undefined;
    }
    try {
      const { names, wrapperName, wrapper } = this.wrapperOf(templates);
      templates.forEach(({ source }, index) => {
        this.register(scope, names[index] as string, source);
      });
      this.register(scope, wrapperName, wrapper);
      const parts = scope.env.renderTemplate(wrapperName, context).split(this.separator);
      if (parts.length === templates.length) {
        this.combinedRenders += 1;
        return parts;
      }
    } catch (error) {
      this.afterError(error);
      // a trap took the WASM instance, and the scope's environment, with it
      if (this.module === undefined) throw error;
    }
    return undefined;
  }

  /** Between the outputs of `renderAll`: random per engine, so no template can write it. */
  private readonly separator = `\u0000kiln:${randomUUID()}\u0000`;

  /**
   * `renderAll`'s template names and wrapper for a list of templates, built once per list: a
   * caller that passes the same list again (renderItem does, per item) saves building and
   * hashing these strings on every render.
   */
  private readonly wrappers = new WeakMap<
    readonly { name: string; source: string }[],
    { names: string[]; wrapperName: string; wrapper: string }
  >();

  private wrapperOf(templates: readonly { name: string; source: string }[]): {
    names: string[];
    wrapperName: string;
    wrapper: string;
  } {
    let built = this.wrappers.get(templates);
    if (!built || built.names.length !== templates.length) {
      const names = templates.map(({ name }) => `${name}.jinja`);
      built = {
        names,
        wrapperName: `${ALL_PREFIX}${names.join("\n")}`,
        wrapper: names
          .map((name) => `{% with %}{% include "${name}" %}{% endwith %}`)
          .join(this.separator),
      };
      this.wrappers.set(templates, built);
    }
    return built;
  }

  /** Compiles `source` as `templateName` unless it already is; keeps the cache in LRU order. */
  private register(scope: Scope, templateName: string, source: string): void {
    const { env, compiled } = scope;
    if (compiled.get(templateName) !== source) {
      compiled.delete(templateName);
      env.addTemplate(templateName, source);
      while (compiled.size >= this.limits.cacheSize) {
        const oldest = compiled.keys().next().value as string;
        compiled.delete(oldest);
        env.removeTemplate(oldest);
      }
    } else {
      compiled.delete(templateName); // re-inserted below as most recently used
    }
    compiled.set(templateName, source);
  }

  /** Drops the current WASM instance; the next render builds a fresh one. */
  private discard(): void {
    this.module = undefined;
    this.shared = undefined;
    this.spare = undefined;
  }
}

/** Names `renderAll` can put in a Jinja string literal as they are. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
const PLAIN_NAME = /^[^"\\\u0000-\u001f]*$/;
/** Wrapper templates of `renderAll`; no name given to `render` ends in `.jinja\n…`. */
const ALL_PREFIX = "kiln:all\n";

/** After a Rust panic the glue reports aliasing errors: the instance is no longer usable. */
function isWasmPanic(error: unknown): boolean {
  return error instanceof Error && /unsafe aliasing|panicked at/.test(error.message);
}
