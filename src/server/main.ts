// A runnable entry for the service alone: `node --import tsx src/server/main.ts --port 0`.
// The CLI (`kiln serve`) dispatches to the same serveCommand.
import { serveCommand } from "./serve-command.ts";

process.exitCode = await serveCommand(process.argv.slice(2));
