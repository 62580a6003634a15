// A one-shot CLI run renders a handful of templates and exits, so compiling the template
// engine's WASM with V8's optimising compiler never pays off: with dynamic tiering, hot
// functions are recompiled by TurboFan while the run is still going, which costs more than it
// saves (about a third of `kiln add`'s time on a two-core machine). Liftoff alone compiles the
// whole module in a few milliseconds. And since V8 compiles the module's functions lazily, on
// their first call, it need not validate all of them up front either (--wasm-lazy-validation
// halves the module's compile time; each function is still validated before it first runs,
// and the module is MiniJinja's own binary from node_modules, never user input).
// The flags are read when the module is compiled, which happens at the first render, so
// commands set them before the engine is loaded (src/node/builtin-renderer.ts), and the CLI's
// render worker sets them itself as it starts (src/sandbox/render-worker.ts). `kiln serve`
// does not: a long-running server wants the optimised code.
//
// Not before a worker starts: flags changed at run time change V8's flag hash, and V8 then
// rejects every code cache made under the old one - also the one Node compiles its own modules
// from in a new worker thread, which then compiles them from source: about 30 ms more CPU for
// each worker started after the change (measured: a pool's start and one render of a registry
// item, 117 ms of CPU with the flags set before the worker started, 75 ms with the worker
// setting them after its start, 87 ms with no flags).
// node:v8 itself is required here, when the engine is about to load: a run that renders only
// built-ins on the compiled path never loads it (about 2 ms of `kiln add`, for the heap and
// serialisation modules it brings).
import { createRequire } from "node:module";

let done = false;

export function preferFastStart(): void {
  if (done) return;
  done = true;
  const { setFlagsFromString } = createRequire(import.meta.url)(
    "node:v8",
  ) as typeof import("node:v8");
  setFlagsFromString("--liftoff-only");
  setFlagsFromString("--wasm-lazy-validation");
}
