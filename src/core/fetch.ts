// Fetching registry items and presets from URLs, with the limits of decisions section 4: http
// and https only, at most 5 redirects, one overall deadline, a cap on the body size.

export interface FetchLimits {
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  timeoutMs: 10_000,
  maxRedirects: 5,
  maxBytes: 10 * 1024 * 1024,
};

export function isUrl(reference: string): boolean {
  return reference.startsWith("http://") || reference.startsWith("https://");
}

/** Why a fetch failed, for people; the caller decides the error message. */
export class FetchFailure extends Error {}

/** GETs `url` as text within the limits, or throws FetchFailure. */
export async function fetchText(
  url: string,
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const target = new URL(current);
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        throw new FetchFailure(`unsupported scheme ${target.protocol}`);
      }
      const response = await fetch(target, { redirect: "manual", signal });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (redirects >= limits.maxRedirects) {
          throw new FetchFailure(`more than ${limits.maxRedirects} redirects`);
        }
        current = new URL(location, target).href;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel();
        throw new FetchFailure(`HTTP status ${response.status}`);
      }
      return await readCapped(response, limits.maxBytes);
    }
  } catch (error) {
    if (error instanceof FetchFailure) throw error;
    throw new FetchFailure((error as Error).message);
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchFailure(`body larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new FetchFailure(`body larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
