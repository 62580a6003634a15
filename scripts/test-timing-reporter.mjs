// A reporter for Node's test runner that adds up the time of each test file's top-level tests
// and writes one JSON object, file -> milliseconds, at the end of the run. scripts/run-tests.mjs
// reads it to name the slowest files beside the run's wall time, so a file that makes the
// suite slow is seen in every run rather than found by bisecting.
export default async function* fileTimes(source) {
  const msByFile = new Map();
  for await (const event of source) {
    const finished = event.type === "test:pass" || event.type === "test:fail";
    if (!finished || event.data.nesting !== 0) continue;
    const file = event.data.file ?? "(unknown file)";
    msByFile.set(file, (msByFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  yield `${JSON.stringify(Object.fromEntries(msByFile))}\n`;
}
