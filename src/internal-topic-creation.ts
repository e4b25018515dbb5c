// How a coordinator's internal topic (__consumer_offsets, __transaction_state) comes to exist when the
// coordinator needs it: a single broker creates it in its own logs; in a cluster only the controller creates
// topics (TopicAdmin asks it, see TopicStore.ensureInternal), and the coordinator waits for its word.

import { KafkaError } from '../protocol/errors.js';
import type { LogManager } from './storage/log-manager.js';

export type InternalTopicCreation = (logs: LogManager, name: string, partitions: number, configs: Record<string, string>) => void;

/** A single broker's: made in its logs at once. */
export const CREATE_IN_LOCAL_LOGS: InternalTopicCreation = (logs, name, partitions, configs) => void logs.createTopic(name, partitions, configs);

/** A cluster broker's: never made here; COORDINATOR_NOT_AVAILABLE (clients retry) until the controller has. */
export const CREATED_BY_CONTROLLER: InternalTopicCreation = (_logs, name) => {
  throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `${name} does not exist yet`);
};
