import type { Logger } from '../logger.js';
import type { RequestHeader } from '../../protocol/codec.js';
import type { Broker } from '../broker.js';

/** What a handler sees of the request it answers and of the broker it runs in. */
export interface RequestContext {
  broker: Broker;
  header: RequestHeader;
  apiVersion: number;
  log: Logger;
  /** Aborted when the client's connection closes, so long polls stop waiting for nobody. */
  signal: AbortSignal;
  /** The peer's IP address, as the socket reports it. */
  clientAddress: string;
  /** Close the connection after the responses queued before this request (Kafka's closeConnection). */
  closeConnection(reason: string): void;
}
