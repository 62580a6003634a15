// The service's life as a load balancer and Kubernetes see it. Liveness (`/api/health`, always
// `ok` while the process answers) and readiness (`/api/ready`) are separate, as in the services
// operators trust: a replica that is starting its render workers or draining is alive but must
// get no new work. On the first SIGTERM or SIGINT readiness turns 503 at once; the listener stays
// open for the drain delay (probes and endpoint lists take that long to notice), then closes;
// requests in flight finish until the shutdown timeout; idle keep-alive connections close; the
// workers stop; exit 0. A second signal exits at once: the operator asked twice.

import { constants } from "node:os";
import { constant, type Reply, text } from "./reply.ts";

/** Where the process is in its life: only `ready` takes new work from a load balancer. */
export type Phase = "starting" | "ready" | "draining";

// The body names the phase, so a person probing by hand sees why a replica is out.
const READY_REPLY = constant(text(200, "ready"));
const STARTING_REPLY = constant(text(503, "starting"));
const DRAINING_REPLY = constant(text(503, "draining"));

/** The phase, shared by the readiness route, the response writer and the signal handling. */
export class Readiness {
  phase: Phase = "starting";

  /** Every render worker is up: the process accepts work (unless it already drains). */
  started(): void {
    if (this.phase === "starting") this.phase = "ready";
  }

  /** A stop signal came: no new work from now on; there is no way back. */
  drain(): void {
    this.phase = "draining";
  }

  get draining(): boolean {
    return this.phase === "draining";
  }

  /** GET /api/ready's answer: 200 `ready`, or 503 `starting` / `draining`. */
  reply(): Reply {
    if (this.phase === "ready") return READY_REPLY;
    return this.phase === "starting" ? STARTING_REPLY : DRAINING_REPLY;
  }
}

/** GET /api/ready: the readiness probe's route. */
export const ready = (_ctx: unknown, services: { readiness: Readiness }): Reply =>
  services.readiness.reply();

/** The two durations of a stop, from the first signal. */
export interface DrainTimes {
  /** How long the listener stays open while readiness already answers 503. */
  delayMs: number;
  /** The most time until the process exits, the delay included. */
  shutdownTimeoutMs: number;
}

/** What a stop needs of the running server. */
interface Drainable {
  /** Stops accepting, closes idle connections, cuts the others after `graceMs`, stops workers. */
  close(graceMs: number): Promise<void>;
}

/** The exit status of a process ended by `signal`, as a shell reports it (128 + its number). */
function signalExitStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

/**
 * Listens for SIGTERM/SIGINT from now on, before the server has started: a signal while the
 * workers start drains too. The first signal turns `readiness` to draining at once; after the
 * delay the server (once started) closes, and `stopped` resolves with 0. A second signal resolves
 * it at once with 128 + the signal's number, whatever is still running. `say` reports each step
 * on the service's log; `onStop` runs once, at the first signal. `cancel` stops listening (when
 * the server could not start).
 */
export function drainOnSignals(
  readiness: Readiness,
  server: Promise<Drainable>,
  times: DrainTimes,
  say: (line: string) => void,
  onStop: () => void = () => {},
): { stopped: Promise<number>; cancel: () => void } {
  let cancel = () => {};
  const stopped = new Promise<number>((resolve, reject) => {
    let stopping = false;
    const stopListening = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
    cancel = stopListening;
    function onSignal(signal: NodeJS.Signals): void {
      if (stopping) {
        say(`kiln: ${signal} again - stopping at once, requests in flight are cut`);
        stopListening();
        resolve(signalExitStatus(signal));
        return;
      }
      stopping = true;
      readiness.drain();
      onStop();
      say(
        `kiln: ${signal} - draining: /api/ready answers 503, the listener closes in ${times.delayMs / 1000} s, exit within ${times.shutdownTimeoutMs / 1000} s (send it again to stop at once)`,
      );
      setTimeout(() => {
        server
          .then((running) => running.close(Math.max(0, times.shutdownTimeoutMs - times.delayMs)))
          .then(
            () => {
              stopListening();
              resolve(0);
            },
            (error: unknown) => {
              stopListening();
              reject(error);
            },
          );
      }, times.delayMs);
    }
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  return { stopped, cancel };
}
