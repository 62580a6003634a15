// A runnable entry for the service alone: `node --import tsx src/server/main.ts --port 0` is
// `kiln serve --port 0`, through the CLI itself, so its output, errors and exit statuses are
// exactly the command's.
process.argv.splice(2, 0, "serve");
await import("../cli/main.ts");
