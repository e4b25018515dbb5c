// KafkaError is recognised by its brand, not its class: the cluster bundle (dist/krill-cluster.cjs) holds its
// own copy of protocol/errors.ts, and the handlers of the main bundle must still read its errors' codes.
import { expect, it } from 'vitest';
import { ErrorCode, KafkaError, errorCodeOf } from '../../protocol/errors.js';
import { RecordValidationError } from '../../src/log-validator.js';

it('an error of another copy of the class is a KafkaError, with its code', async () => {
  // A query string makes vitest load a second, separate instance of the module.
  const secondCopy = '../../protocol/errors.js?second-copy';
  const copy = (await import(secondCopy)) as typeof import('../../protocol/errors.js');
  expect(copy.KafkaError).not.toBe(KafkaError);
  const err = new copy.KafkaError('NOT_COORDINATOR', 'elsewhere');
  expect(err instanceof KafkaError).toBe(true);
  expect(errorCodeOf(err)).toBe(ErrorCode.NOT_COORDINATOR);
});

it('other errors are not, and subclasses keep their own instanceof', () => {
  expect(new Error('x') instanceof KafkaError).toBe(false);
  expect({ code: 16, name: 'KafkaError' } instanceof KafkaError).toBe(false);
  expect((null as unknown) instanceof KafkaError).toBe(false);
  expect(new KafkaError('INVALID_RECORD') instanceof RecordValidationError).toBe(false);
});
