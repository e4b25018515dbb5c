// Kafka's controlled shutdown, as the stopping broker asks for it: the controller (as ZooKeeper names it
// now) moves this broker's leaderships away before it goes, so that clients see a leader change rather than
// an outage. The controller's side is Controller.controlledShutdown.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { BrokerConfig } from '../config.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import { INTER_BROKER_VERSIONS } from './broker-client.js';
import type { PeerClients } from './peer-clients.js';
import type { KafkaZk } from './zk/kafka-zk.js';

/** A stopping broker whose controller moved asks ZooKeeper again, this often and this many times. */
const CONTROLLER_LOOKUP_MS = 100;
const MAX_CONTROLLER_LOOKUPS = 50;

export interface ControlledShutdownOptions {
  config: BrokerConfig;
  log: Logger;
  localNodeId: number;
  brokerEpoch: number;
  peers: PeerClients;
}

/**
 * Asks the controller to move this broker's leaderships away, up to controlled.shutdown.max.retries times,
 * waiting controlled.shutdown.retry.backoff.ms while it answers with partitions it could not move yet. A
 * controller that changed or went away meanwhile (NOT_CONTROLLER, a refused connection: other brokers may be
 * stopping too) is looked up again at once. Gives up (logged) when ZooKeeper or the controller stay silent for
 * a session's length: by then the session is over, and with it the registration.
 */
export async function requestControlledShutdown(zk: KafkaZk, options: ControlledShutdownOptions): Promise<void> {
  const { config, log } = options;
  if (!config.bool('controlled.shutdown.enable')) return;
  const retries = config.int('controlled.shutdown.max.retries');
  const backoffMs = config.int('controlled.shutdown.retry.backoff.ms');
  const boundMs = config.int('zookeeper.session.timeout.ms');
  let lookups = 0;
  for (let attempt = 1; attempt <= retries;) {
    let outcome: 'done' | 'incomplete' | 'moved';
    try {
      outcome = await withTimeout(sendControlledShutdown(zk, options), boundMs);
    } catch (err) {
      if (err instanceof TimeoutError) {
        log.warn('stopping without a controlled shutdown: ZooKeeper or the controller did not answer');
        return;
      }
      log.warn({ err: (err as Error).message }, 'controlled shutdown request failed');
      outcome = 'moved';
    }
    if (outcome === 'done') return;
    if (outcome === 'moved' && ++lookups <= MAX_CONTROLLER_LOOKUPS) {
      await sleep(CONTROLLER_LOOKUP_MS);
      continue;
    }
    if (++attempt <= retries) await sleep(backoffMs);
  }
  log.warn('stopping without a complete controlled shutdown');
}

/** One ControlledShutdown to the current controller: done, incomplete (partitions remain), or moved (no controller to ask). */
async function sendControlledShutdown(zk: KafkaZk, options: ControlledShutdownOptions): Promise<'done' | 'incomplete' | 'moved'> {
  const controllerId = await zk.getControllerId();
  const controller = controllerId === null ? undefined : (await zk.getBrokers()).find((b) => b.id === controllerId);
  if (!controller) return 'moved';
  const client = options.peers.open(controller);
  try {
    const response = await client.send(API_KEYS.ControlledShutdown, INTER_BROKER_VERSIONS.ControlledShutdown, {
      brokerId: options.localNodeId,
      brokerEpoch: options.brokerEpoch,
    });
    if (response.errorCode === ErrorCode.NONE && response.remainingPartitions.length === 0) {
      options.log.info('controlled shutdown complete');
      return 'done';
    }
    if (response.errorCode === ErrorCode.NOT_CONTROLLER) return 'moved';
    options.log.warn({ errorCode: response.errorCode, remaining: response.remainingPartitions.length }, 'controlled shutdown incomplete');
    return 'incomplete';
  } finally {
    client.close();
  }
}

class TimeoutError extends Error {}

/** `promise`, or a TimeoutError after `ms` (the promise is left to settle on its own). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
