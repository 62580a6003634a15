// What the service fetches on a caller's behalf (registry items from URLs), bounded:
// - a fixed number of fetches under way at once, a bounded line of fetches waiting for a place,
//   and a waiting fetch leaves the line when its client goes away;
// - never from the service itself: a URL whose host is one of this machine's addresses (or a
//   loopback or unspecified one) and whose port is the one the service listens on is refused,
//   at the first request and at every redirect, so a URL cannot make the service fetch itself
//   without end (a redirect back to /api/registry/inspect?ref=<itself>). Addresses are compared
//   by what they mean, whatever their spelling (`[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`: see
//   addresses.ts).
import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import { FetchFailure } from "../node/fetch-url.ts";
import { AddressSet, alwaysThisMachine, canonicalAddress } from "./addresses.ts";

export interface OutboundLimits {
  /** Fetches under way at once. */
  concurrent: number;
  /** Fetches waiting for a place beyond this are refused at once. */
  waiting: number;
}

export const DEFAULT_OUTBOUND_LIMITS: OutboundLimits = { concurrent: 16, waiting: 256 };

/** A counting semaphore for outbound fetches. */
export class FetchSlots {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(private readonly limits: OutboundLimits) {}

  get underWay(): number {
    return this.active;
  }

  /** Fetches waiting in line for a place. */
  get waiting(): number {
    return this.line.length;
  }

  /** Resolves with the release once a place is free; refuses when the line is full. */
  readonly acquire = (signal: AbortSignal): Promise<() => void> => {
    if (this.active < this.limits.concurrent) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.line.length >= this.limits.waiting) {
      return Promise.reject(
        new FetchFailure(
          `the service has ${this.limits.concurrent} fetches under way and ${this.limits.waiting} waiting - try again in a moment`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal.removeEventListener("abort", leave);
        this.active += 1;
        resolve(this.releaser());
      };
      const leave = () => {
        const at = this.line.indexOf(go);
        if (at !== -1) this.line.splice(at, 1);
        reject(new FetchFailure("the request that asked for it was cancelled"));
      };
      signal.addEventListener("abort", leave, { once: true });
      this.line.push(go);
    });
  };

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.line.shift()?.();
    };
  }
}

/**
 * The check of every fetch target: refuses this service's own listening address. `port()`
 * gives the port the service listens on (known once it listens).
 */
export function refuseOwnAddress(port: () => number): (target: URL) => Promise<void> {
  return async (target) => {
    const targetPort = Number(target.port || (target.protocol === "https:" ? 443 : 80));
    if (targetPort !== port()) return;
    let addresses: string[];
    if (canonicalAddress(target.hostname) !== undefined) {
      addresses = [target.hostname];
    } else {
      try {
        addresses = (await lookup(target.hostname, { all: true })).map((entry) => entry.address);
      } catch {
        return; // the fetch itself reports a name that does not resolve
      }
    }
    const own = new AddressSet();
    for (const entry of Object.values(networkInterfaces()).flat()) {
      if (entry) own.add(entry.address);
    }
    if (addresses.some((address) => alwaysThisMachine(address) || own.has(address))) {
      throw new FetchFailure(
        `${target.host} is this service's own address - the service does not fetch from itself`,
      );
    }
  };
}
