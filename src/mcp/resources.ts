// The resources the server offers: each registry item as `kiln://item/<reference>` (its view:
// fields, files and an example render, as the view_item tool answers) and the project's
// kiln.lock as `kiln://project/kiln.lock`, read by the same rules as every command reads it.

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { LOCK_FILE } from "../core/config.ts";
import { KilnError } from "../core/errors.ts";
import { readLockText } from "../node/lock-on-disk.ts";
import type { McpHost } from "./command-host.ts";
import { positionals } from "./tool-answer.ts";

const ITEM_PREFIX = "kiln://item/";
export const LOCK_URI = "kiln://project/kiln.lock";

/** The reference a resource URI names (`kiln://item/k8s/deployment` -> `k8s/deployment`). */
function referenceOf(uri: URL): string {
  return decodeURIComponent(uri.href.slice(ITEM_PREFIX.length));
}

/** A command's failure as the error a resource read answers with: kiln's message and kind. */
function readFailure(failure: {
  kind: string;
  message: string;
  detail?: string | undefined;
}): Error {
  const detail = failure.detail === undefined ? "" : `\n${failure.detail}`;
  return new Error(`${failure.message} (${failure.kind})${detail}`);
}

export function registerResources(server: McpServer, host: McpHost): void {
  server.registerResource(
    "item",
    new ResourceTemplate(`${ITEM_PREFIX}{+reference}`, {
      // the built-ins; a registry's items are read by their reference (search_items finds them)
      list: async () => {
        const run = await host.runCommand("list", ["--json"]);
        if (run.failure) throw readFailure(run.failure);
        const { items } = run.document as {
          items: { reference: string; title: string; description: string }[];
        };
        return {
          resources: items.map((item) => ({
            uri: `${ITEM_PREFIX}${item.reference}`,
            name: item.reference,
            title: item.title,
            description: item.description || item.title,
            mimeType: "application/json",
          })),
        };
      },
    }),
    {
      title: "Registry item",
      description: "An item's fields, files and example render (as `kiln view --json`)",
      mimeType: "application/json",
    },
    async (uri) => {
      const run = await host.runCommand("view", ["--json", ...positionals(referenceOf(uri))]);
      if (run.failure) throw readFailure(run.failure);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: run.stdout }] };
    },
  );

  server.registerResource(
    "kiln.lock",
    LOCK_URI,
    {
      title: "The project's kiln.lock",
      description: "What kiln vendored into this project: every component, its values and files",
      mimeType: "application/json",
    },
    async (uri) => {
      const text = readLockText(process.cwd());
      if (text === undefined) {
        throw readFailure(
          new KilnError(
            "not_found",
            `no ${LOCK_FILE} in this project - kiln add or kiln setup writes one`,
          ),
        );
      }
      return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
    },
  );
}
