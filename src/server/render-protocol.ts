// Messages between the RenderPool (main thread) and its render workers.
import type {
  EngineLimits,
  ErrorKind,
  RegistryItem,
  RenderInput,
  RenderResult,
} from "../core/index.ts";

export interface WorkerData {
  engineLimits: Partial<EngineLimits>;
  /** Items every worker holds (the built-in registry), so a job names them by index. */
  preloadedItems: RegistryItem[];
  /** Ask to be replaced once WASM memory plus JS heap exceed this many bytes. */
  recycleBytes: number;
  /** Refuse results whose paths and contents together exceed this many characters. */
  maxOutputChars: number;
}

export interface WorkerRequest {
  id: number;
  /** Index into `preloadedItems`, or absent with `item` set. */
  preloaded?: number;
  item?: RegistryItem;
  input: RenderInput;
}

export type WorkerReply =
  | { id: number; ok: true; result: RenderResult; recycle: boolean }
  | { id: number; ok: false; error: { kind: ErrorKind; message: string }; recycle: boolean };

export interface WorkerReady {
  ready: true;
}
