// How handlers answer a failure of one topic or partition inside a request: a KafkaError becomes that
// entry's error code (and message, where the response has one); anything else is a broker bug and
// propagates, so the connection's error path logs it and answers the whole request with the handler's
// errorResponse (or, for a handler without one, the response error-response.ts builds from the definition).
import { KafkaError } from '../../protocol/errors.js';

/** `err` when it is a KafkaError; rethrows anything else. */
export function asKafkaError(err: unknown): KafkaError {
  if (err instanceof KafkaError) return err;
  throw err;
}

/** The errorCode and errorMessage fields of an entry that failed with `err` (a KafkaError, else rethrown). */
export function errorResult(err: unknown): { errorCode: number; errorMessage: string } {
  const e = asKafkaError(err);
  return { errorCode: e.code, errorMessage: e.message };
}
