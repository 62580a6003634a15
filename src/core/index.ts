// The core's public surface, for the fronts (CLI, HTTP service, dashboard build).
export * from "./config.ts";
export * from "./context.ts";
export * from "./engine.ts";
export * from "./errors.ts";
export * from "./fetch.ts";
export * from "./item.ts";
export * from "./plan.ts";
export * from "./preset.ts";
export * from "./project/kiln-toml.ts";
export * from "./registry.ts";
export * from "./render.ts";
export * from "./resolve.ts";
export * from "./shape.ts";
