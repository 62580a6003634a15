// The service's request-parsing errors, in fixed words clients match (text/plain bodies, with
// the status each carries): a body that is not JSON, of the wrong media type or too large, a
// body of the wrong shape, a bad query string. Raised wherever a request is decoded - on the
// thread that serves HTTP, or in a render worker that parses a large body - and answered as
// they are by the service (src/server/http-errors.ts).

/** A request-parsing error answered as text/plain (415, 400 bad JSON, 413, 422, 400 query). */
export class FrameworkError extends Error {
  readonly status: number;
  readonly close: boolean;

  constructor(status: number, message: string, options: { close?: boolean } = {}) {
    super(message);
    this.name = "FrameworkError";
    this.status = status;
    this.close = options.close ?? false;
  }
}

export const MESSAGES = {
  unsupportedMediaType: "Expected request with `Content-Type: application/json`",
  badJson: (detail: string) => `Failed to parse the request body as JSON: ${detail}`,
  wrongShape: (detail: string) =>
    `Failed to deserialize the JSON body into the target type: ${detail}`,
  tooLarge: "Failed to buffer the request body: length limit exceeded",
  badQuery: (detail: string) => `Failed to deserialize query string: ${detail}`,
};
