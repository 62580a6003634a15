// kiln serve, the command line's half: its options (declared with every other command's in
// command-list.ts, each with the environment variable it falls back to), checked, as the
// settings the HTTP service runs with. The program's entry (src/main.ts) hands them to the
// service (src/server/serve-command.ts): the command line never imports the server.

import { resolve } from "node:path";
import type { LogFormat, ServiceSettings } from "../../core/service-settings.ts";
import {
  DEFAULT_BIND,
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  LOG_FORMATS,
  parseOriginList,
} from "../../core/service-settings.ts";
import { MAX_FUEL } from "../../node/template-engine.ts";
import { flag, type Parsed, stringOption, UsageError } from "../args.ts";
import { SERVE } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";

export function help(): string {
  return commandHelp(SERVE, {
    title: "serve the HTTP API (and with --ui the dashboard)",
    about: `Each option falls back to its environment variable, then to its default; an empty
variable counts as unset.`,
    examples: [
      "kiln serve",
      "kiln serve --ui",
      "kiln serve --port 8080 --allow-origin https://dash.example.com",
    ],
  });
}

/** The option's value, else its environment variable's (an empty one counts as unset). */
function setting(parsed: Parsed, name: string, env: NodeJS.ProcessEnv): string | undefined {
  const given = parsed.values[name];
  if (typeof given === "string") return given;
  const variable = SERVE.options.find((option) => option.name === name)?.env;
  const value = variable === undefined ? undefined : env[variable];
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

/** A repeatable option's values, else its environment variable's (comma-separated lists). */
function settingList(parsed: Parsed, name: string, env: NodeJS.ProcessEnv): string[] {
  const given = parsed.values[name];
  const values = Array.isArray(given) ? given : [setting(parsed, name, env) ?? ""];
  return parseOriginList(values);
}

/** A whole number within bounds, or the usage error naming the setting. */
function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new UsageError(`${name} must be an integer, got \`${value}\``);
  }
  const number = Number(value.trim());
  if (number < min || number > max) {
    throw new UsageError(`${name} must be between ${min} and ${max}, got \`${value}\``);
  }
  return number;
}

/**
 * A duration in seconds (a fraction allowed: `0.5`) within bounds, in milliseconds, or the usage
 * error naming the setting.
 */
function seconds(name: string, value: string, maxSeconds: number): number {
  if (!/^\d+(\.\d{1,3})?$/.test(value.trim())) {
    throw new UsageError(`${name} must be a number of seconds (like 5 or 0.5), got \`${value}\``);
  }
  const ms = Math.round(Number(value.trim()) * 1000);
  if (ms > maxSeconds * 1000) {
    throw new UsageError(`${name} must be between 0 and ${maxSeconds} seconds, got \`${value}\``);
  }
  return ms;
}

/**
 * The stop signal's two durations. The delay is part of the timeout, so a delay longer than the
 * timeout could never be kept: refused, naming both.
 */
function drainSettings(delay: string | undefined, timeout: string | undefined) {
  const delayMs =
    delay === undefined ? DEFAULT_DRAIN_DELAY_MS : seconds("drain delay", delay, 3600);
  const shutdownTimeoutMs =
    timeout === undefined
      ? DEFAULT_SHUTDOWN_TIMEOUT_MS
      : seconds("shutdown timeout", timeout, 3600);
  if (delayMs > shutdownTimeoutMs) {
    throw new UsageError(
      `the drain delay (${delayMs / 1000} s) must not be longer than the shutdown timeout (${shutdownTimeoutMs / 1000} s) - lower --drain-delay or raise --shutdown-timeout`,
    );
  }
  return { delayMs, shutdownTimeoutMs };
}

/** `--metrics on|off`: whether the service serves GET /metrics. */
function metricsSwitch(value: string | undefined): boolean {
  if (value === undefined) return true;
  const choice = value.trim();
  if (choice === "on" || choice === "off") return choice === "on";
  throw new UsageError(`metrics must be \`on\` or \`off\`, got \`${value}\``);
}

/** `--log-format json|text`; unset leaves the choice to the service (stdout a terminal or not). */
function logFormat(value: string | undefined): LogFormat | undefined {
  if (value === undefined) return undefined;
  const choice = value.trim();
  const known = LOG_FORMATS.find((format) => format === choice);
  if (known === undefined) {
    throw new UsageError(`log format must be \`json\` or \`text\`, got \`${value}\``);
  }
  return known;
}

/** The service's settings from the parsed options, then the environment, then the defaults. */
export function serviceSettings(
  parsed: Parsed,
  env: NodeJS.ProcessEnv = process.env,
): ServiceSettings {
  const read = (name: string) => setting(parsed, name, env);
  const port = read("port");
  const settings: ServiceSettings = {
    bind: read("bind")?.trim() ?? DEFAULT_BIND,
    port: port === undefined ? DEFAULT_PORT : integer("port", port, 0, 65535),
    allowedOrigins: settingList(parsed, "allow-origin", env),
    allowedHosts: settingList(parsed, "allowed-host", env),
    ui: flag(parsed, "ui"),
    render: {},
    drain: drainSettings(read("drain-delay"), read("shutdown-timeout")),
    metrics: metricsSwitch(read("metrics")),
  };
  const format = logFormat(read("log-format"));
  if (format !== undefined) settings.logFormat = format;
  const timeout = read("render-timeout");
  if (timeout !== undefined) {
    settings.render.deadlineMs = integer("render timeout", timeout, 1, 600_000);
  }
  const fuel = read("render-fuel");
  if (fuel !== undefined) settings.render.fuel = integer("render fuel", fuel, 1, MAX_FUEL);
  const memory = read("render-memory");
  if (memory !== undefined) {
    settings.render.engineMemoryBytes = integer("render memory", memory, 16, 4096) * 1024 * 1024;
  }
  const cache = read("render-cache");
  if (cache !== undefined) {
    settings.renderCacheBytes = integer("render cache", cache, 0, 4096) * 1024 * 1024;
  }
  const freshness = read("index-freshness");
  if (freshness !== undefined) {
    settings.indexFreshnessMs = integer("index freshness", freshness, 0, 86_400) * 1000;
  }
  const configFile = stringOption(parsed, "config");
  if (configFile !== undefined) settings.configFile = resolve(configFile);
  const workers = read("workers");
  if (workers !== undefined) settings.render.size = integer("workers", workers, 1, 256);
  return settings;
}

/** The settings `kiln serve <argv>` runs with; a wrong option or value is a UsageError. */
export function settingsFrom(argv: string[]): ServiceSettings {
  return serviceSettings(parseCommand(argv, SERVE).parsed);
}
