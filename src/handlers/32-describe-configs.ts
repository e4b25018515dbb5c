// DescribeConfigs: v0-4.
// Behaviour: each resource (TOPIC, BROKER, BROKER_LOGGER) is described on its own, or answered with its
// error (UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION, INVALID_REQUEST for another broker's id or an
// unknown resource type); see config-admin/describe.ts for the values, sources and synonyms.
// Version notes: v0 says isDefault (source DEFAULT_CONFIG) instead of a source and has no synonyms
// (Kafka 4.0 dropped it, KIP-896; 3.x serves it); v1 adds includeSynonyms; v3 the config type and
// documentation; v4 is flexible.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { DescribeConfigsResponse } from '../../protocol/messages/32-describe-configs.js';
import { ConfigSource } from '../config-admin/describe.js';

type Result = DescribeConfigsResponse['results'][number];

export default defineHandler({
  apiKey: 32,
  minVersion: 0,
  maxVersion: 4,
  handle({ configs, apiVersion, log }, req): DescribeConfigsResponse {
    const options = { includeSynonyms: apiVersion >= 1 && req.includeSynonyms, includeDocumentation: req.includeDocumentation };
    const results = req.resources.map(({ resourceType, resourceName, configurationKeys }): Result => {
      try {
        const entries = configs.describe({ resourceType, resourceName }, { ...options, keys: configurationKeys });
        return {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          resourceType,
          resourceName,
          configs: entries.map((e) => ({ ...e, isDefault: e.configSource === ConfigSource.DEFAULT_CONFIG })),
        };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        log.info({ resourceType, resourceName, code: err.code }, err.message);
        return { errorCode: err.code, errorMessage: err.message, resourceType, resourceName, configs: [] };
      }
    });
    return { throttleTimeMs: 0, results };
  },
});
