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
import { KilnError } from "./errors.ts";
import { KILN_FILTERS, safeFilter } from "./filters.ts";

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
const gluePath = require.resolve("minijinja-js/dist/node/minijinja_js.js");
const glueSource = readFileSync(gluePath, "utf8");
const compiledModules = new Map<number, WebAssembly.Module>();

/** The compiled, memory-capped WASM module; compiled once per process and per cap. */
function wasmModule(maxPages: number): WebAssembly.Module {
  let compiled = compiledModules.get(maxPages);
  if (!compiled) {
    const original = readFileSync(join(dirname(gluePath), "minijinja_js_bg.wasm"));
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
    glueSource,
  );
  run(mod, mod.exports, glueRequire, dirname(gluePath), silentConsole, wasmShim);
  return mod.exports as unknown as MiniJinjaModule;
}

/** Turns a MiniJinja error into the one-line engine message (no source excerpt). */
function engineMessage(error: unknown): string {
  if (error instanceof WebAssembly.RuntimeError) {
    return `template engine failure: ${error.message} (a limit was hit or the template triggered an engine bug)`;
  }
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n", 1)[0] as string;
}

/**
 * A sandboxed Jinja renderer with Jinja semantics as MiniJinja 2 has them: undefined values
 * print as "", iterate as empty and chain (`missing.attr`); trailing newlines are kept; maps
 * iterate in key order; no auto-escaping.
 */
export class TemplateEngine {
  readonly limits: EngineLimits;
  private env: MiniJinjaEnvironment | undefined;
  /** Compiled templates by name, in least-recently-used order, with their source. */
  private readonly compiled = new Map<string, string>();
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

  private environment(): MiniJinjaEnvironment {
    if (!this.env) {
      const { Environment } = loadMiniJinja(Math.ceil(this.limits.memoryBytes / WASM_PAGE));
      const env = new Environment();
      env.debug = false; // with debug on, error messages include variable values
      env.keepTrailingNewline = true;
      env.undefinedBehavior = "chainable";
      env.fuel = this.limits.fuel;
      for (const [name, filter] of Object.entries(KILN_FILTERS))
        env.addFilter(name, safeFilter(filter));
      this.env = env;
      this.compiled.clear();
    }
    return this.env;
  }

  /**
   * Renders `source` with `context`. `name` identifies the template in error messages; it must
   * not end in an extension that turns on auto-escaping, so it is suffixed with ".jinja".
   */
  render(name: string, source: string, context: Record<string, unknown>): string {
    const templateName = `${name}.jinja`;
    try {
      const env = this.environment();
      this.register(env, templateName, source);
      return env.renderTemplate(templateName, context);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError || isWasmPanic(error)) this.discard();
      throw new KilnError("internal", engineMessage(error));
    }
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
  ): string[] {
    const one = () => templates.map(({ name, source }) => this.render(name, source, context));
    if (templates.length < 2 || !templates.every(({ name }) => PLAIN_NAME.test(name))) {
      return one();
    }
    try {
      const env = this.environment();
      const names = templates.map(({ name }) => `${name}.jinja`);
      const wrapperName = `${ALL_PREFIX}${names.join("\n")}`;
      const wrapper = names
        .map((name) => `{% with %}{% include "${name}" %}{% endwith %}`)
        .join(this.separator);
      templates.forEach(({ source }, index) => {
        this.register(env, names[index] as string, source);
      });
      this.register(env, wrapperName, wrapper);
      const parts = env.renderTemplate(wrapperName, context).split(this.separator);
      if (parts.length === templates.length) {
        this.combinedRenders += 1;
        return parts;
      }
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError || isWasmPanic(error)) this.discard();
    }
    return one();
  }

  /** Between the outputs of `renderAll`: random per engine, so no template can write it. */
  private readonly separator = `\u0000kiln:${randomUUID()}\u0000`;

  /** Compiles `source` as `templateName` unless it already is; keeps the cache in LRU order. */
  private register(env: MiniJinjaEnvironment, templateName: string, source: string): void {
    if (this.compiled.get(templateName) !== source) {
      this.compiled.delete(templateName);
      env.addTemplate(templateName, source);
      this.evictOldest(env);
    } else {
      this.compiled.delete(templateName); // re-inserted below as most recently used
    }
    this.compiled.set(templateName, source);
  }

  private evictOldest(env: MiniJinjaEnvironment): void {
    while (this.compiled.size >= this.limits.cacheSize) {
      const oldest = this.compiled.keys().next().value as string;
      this.compiled.delete(oldest);
      env.removeTemplate(oldest);
    }
  }

  /** Drops the current WASM instance; the next render builds a fresh one. */
  private discard(): void {
    this.env = undefined;
    this.compiled.clear();
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
