// Error kinds to exit statuses, in one place: 2 for a usage error (the command was called
// wrongly), 1 for every failed operation (bad reference, missing field, path rule, write error).
import { isUsageError } from "./args.ts";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(error: unknown): number {
  if (isUsageError(error)) return EXIT_USAGE;
  // every KilnError kind (invalid_request, not_found, not_initialized, already_exists,
  // internal, overloaded) is a failed operation, as is any unexpected error
  return EXIT_FAILED;
}
