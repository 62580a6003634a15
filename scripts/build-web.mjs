// Builds the dashboard (web/, a Vite project) into dist/web, which `kiln serve --ui` serves at `/`.
import { build } from "vite";

await build({ configFile: new URL("../web/vite.config.ts", import.meta.url).pathname });
console.log("dashboard built into dist/web");
