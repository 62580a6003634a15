// kiln serve: hands over to the HTTP service (src/server/serve-command.ts). The server code is
// imported only here, so no other command pays for loading it; the bundle keeps it outside,
// as the compiled dist/server (its render pool starts worker threads from their own files).
import { KilnError } from "../../core/errors.ts";
import type { Output } from "../output.ts";

interface ServeModule {
  serveCommand(argv: string[], output: Output): Promise<number>;
  SERVE_USAGE: string;
}

async function loadServer(): Promise<ServeModule> {
  try {
    return (await import("../../server/serve-command.ts")) as ServeModule;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      String((error as Error).message).includes("serve-command");
    if (!missing) throw error;
    throw new KilnError(
      "internal",
      "the HTTP service is not part of this build - run `npm run build` to build it",
    );
  }
}

const EXAMPLES = `
Examples:
  kiln serve
  kiln serve --ui
  kiln serve --port 8080 --allow-origin https://dash.example.com
`;

/** The server's own usage (one source for its options), plus examples. */
export async function help(): Promise<string> {
  const { SERVE_USAGE } = await loadServer();
  return `${SERVE_USAGE}${EXAMPLES}`;
}

/** Errors come back thrown, so the CLI prints them and maps them to exit statuses as always. */
export async function run(argv: string[], output: Output): Promise<number> {
  const server = await loadServer();
  return server.serveCommand(argv, output);
}
