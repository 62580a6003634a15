// `--ui`: the dashboard's static files from `dist/web`, served at `/`. `index.html` answers `/`
// and any unknown non-/api path whose request accepts text/html (the dashboard routes on the
// client). Paths are confined to the folder: no `..`, no encoded slashes, no NUL.
import { readFile, stat } from "node:fs/promises";
import { extname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reply } from "./reply.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
};

/** `dist/web` of the package: two levels up from src/server or one from dist/server. */
export function defaultUiDir(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  return import.meta.url.endsWith(".ts")
    ? resolve(here, "../../dist/web")
    : resolve(here, "../web");
}

async function fileReply(path: string): Promise<Reply | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return undefined;
    const body = await readFile(path);
    const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
    return {
      status: 200,
      headers: { "content-type": type, "x-content-type-options": "nosniff" },
      body,
    };
  } catch {
    return undefined;
  }
}

/** A reply for a GET/HEAD of a non-/api path, or undefined when there is nothing to serve. */
export async function serveUi(
  root: string,
  path: string,
  accept: string | undefined,
): Promise<Reply | undefined> {
  if (path === "/api" || path.startsWith("/api/")) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  const segments = decoded.split("/").filter((segment) => segment !== "");
  if (segments.some((segment) => segment === "..")) return undefined;
  const target = join(root, ...segments);
  const inside = relative(root, target);
  if (inside.startsWith("..") || isAbsolute(inside)) return undefined;
  const found = segments.length > 0 ? await fileReply(target) : undefined;
  if (found) return found;
  if (segments.length === 0 || (accept ?? "").includes("text/html")) {
    return fileReply(join(root, "index.html"));
  }
  return undefined;
}
