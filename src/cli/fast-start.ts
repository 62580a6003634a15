// A one-shot CLI run renders a handful of templates and exits, so compiling the template
// engine's WASM with V8's optimising compiler never pays off: with dynamic tiering, hot
// functions are recompiled by TurboFan while the run is still going, which costs more than it
// saves (about a third of `kiln add`'s time on a two-core machine). Liftoff alone compiles the
// whole module in a few milliseconds. And since V8 compiles the module's functions lazily, on
// their first call, it need not validate all of them up front either (--wasm-lazy-validation
// halves the module's compile time; each function is still validated before it first runs,
// and the module is MiniJinja's own binary from node_modules, never user input).
// The flags are read when the module is compiled, which happens at the first render that needs
// the engine, so commands set them just before the engine (or the worker, which inherits them)
// is loaded: a run that renders only built-ins on the compiled path never loads the engine, and
// never loads node:v8 either (about 2 ms of `kiln add`, for the heap and serialisation modules it
// brings). `kiln serve` does not set them: a long-running server wants the optimised code.
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
