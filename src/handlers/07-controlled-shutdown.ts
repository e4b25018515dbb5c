// ControlledShutdown: v3 only, the version krill brokers send. Behaviour: answered by the controller
// (NOT_CONTROLLER elsewhere): the stopping broker's leaderships move to other live in-sync replicas, and the
// partitions it still leads that could have moved are listed; BROKER_NOT_AVAILABLE for a broker not
// registered, STALE_BROKER_EPOCH for an older registration of it (cluster/controller.ts).
import { defineHandler } from './registry.js';
import type { ControlledShutdownResponse } from '../../protocol/messages/07-controlled-shutdown.js';

export default defineHandler({
  apiKey: 7,
  minVersion: 3,
  maxVersion: 3,
  async handle({ controllerRequests }, req): Promise<ControlledShutdownResponse> {
    return controllerRequests.controlledShutdown(req.brokerId, Number(req.brokerEpoch));
  },
  errorResponse(_req, code): ControlledShutdownResponse {
    return { errorCode: code, remainingPartitions: [] };
  },
});
