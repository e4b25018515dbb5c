// krill transactions list|describe|abort: Kafka's kafka-transactions. `abort` ends a hanging transaction on
// one partition as that tool does: it finds the open transaction's producer with DescribeProducers on the
// partition's leader and sends that leader an abort marker (WriteTxnMarkers), without the coordinator.
import { ErrorCode } from '../../protocol/errors.js';
import { UsageError, intOption, onePositional, requireOption, type Command } from './command.js';
import { BrokerError, COORDINATOR_TRANSACTION, check } from './kafka-client.js';
import { columns } from './table.js';

const list: Command = {
  name: 'transactions list',
  summary: 'the transactional ids every broker coordinates, with their states',
  usage: '',
  options: {},
  async run(ctx) {
    const answers = await (await ctx.client()).sendToEach(66, { stateFilters: [], producerIdFilters: [], durationFilter: -1 });
    const rows = answers
      .flatMap(({ nodeId, response }) => {
        check(response.errorCode, `ListTransactions of broker ${nodeId}`);
        return response.transactionStates.map((t) => ({
          transactionalId: t.transactionalId,
          producerId: t.producerId,
          state: t.transactionState,
          coordinator: nodeId,
        }));
      })
      .sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
    ctx.print(rows, columns('transactionalId', 'producerId', 'state', 'coordinator'));
  },
};

const describe: Command = {
  name: 'transactions describe',
  summary: "a transactional id's state, producer, timeout and the partitions of its open transaction",
  usage: '<transactional-id>',
  options: {},
  async run(ctx) {
    const id = onePositional(ctx, 'transactional id');
    const client = await ctx.client();
    const { coordinator, response: res } = await client.sendToCoordinator(id, COORDINATOR_TRANSACTION, 65, { transactionalIds: [id] }, (r) =>
      r.transactionStates.map((t) => t.errorCode),
    );
    const t = res.transactionStates[0];
    check(t.errorCode, `describing transactional id '${id}'`);
    const d = {
      transactionalId: id,
      coordinator,
      state: t.transactionState,
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      timeoutMs: t.transactionTimeoutMs,
      startTimeMs: t.transactionStartTimeMs < 0 ? null : t.transactionStartTimeMs,
      partitions: t.topics.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort(),
    };
    ctx.print([d], columns('transactionalId', 'coordinator', 'producerId', 'producerEpoch', 'state', 'timeoutMs', 'startTimeMs', 'partitions'), d);
  },
};

const abort: Command = {
  name: 'transactions abort',
  summary: 'abort a hanging transaction on one partition',
  usage: `--topic T --partition P (--start-offset O | --producer-id ID --producer-epoch E --coordinator-epoch C)
  --topic T --partition P       the partition the transaction hangs on
  --start-offset O              the first offset of the open transaction (transactions describe-producers shows it)
  --producer-id ID, --producer-epoch E, --coordinator-epoch C
                                the transaction's producer, when its start offset is not known`,
  options: {
    topic: { type: 'string' },
    partition: { type: 'string' },
    'start-offset': { type: 'string' },
    'producer-id': { type: 'string' },
    'producer-epoch': { type: 'string' },
    'coordinator-epoch': { type: 'string' },
  },
  async run(ctx) {
    const topic = requireOption(ctx.values, 'topic');
    const partition = intOption(ctx.values, 'partition', 0);
    if (partition === undefined) throw new UsageError('--partition is required');
    const startOffset = intOption(ctx.values, 'start-offset', 0);
    const given = {
      producerId: intOption(ctx.values, 'producer-id', 0),
      producerEpoch: intOption(ctx.values, 'producer-epoch', 0),
      coordinatorEpoch: intOption(ctx.values, 'coordinator-epoch', 0),
    };
    const explicit = Object.values(given).filter((v) => v !== undefined).length;
    if ((startOffset !== undefined) === explicit > 0 || (explicit > 0 && explicit < 3)) {
      throw new UsageError('give --start-offset, or all of --producer-id, --producer-epoch and --coordinator-epoch');
    }
    const client = await ctx.client();
    const [md] = await client.topics([topic]);
    const leader = md.partitions.find((p) => p.partition === partition)?.leader;
    if (leader === undefined) throw new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${partition}`);
    let producer = given as { producerId: number; producerEpoch: number; coordinatorEpoch: number };
    if (startOffset !== undefined) {
      const res = await client.sendTo(leader, 61, { topics: [{ name: topic, partitionIndexes: [partition] }] });
      const p = res.topics[0].partitions[0];
      check(p.errorCode, `describing the producers of ${topic}-${partition}`, p.errorMessage);
      const open = p.activeProducers.find((a) => a.currentTxnStartOffset === startOffset);
      if (!open) throw new BrokerError(ErrorCode.INVALID_TXN_STATE, `${topic}-${partition}`, `no open transaction starts at offset ${startOffset}`);
      producer = { producerId: open.producerId, producerEpoch: open.producerEpoch, coordinatorEpoch: open.coordinatorEpoch };
    }
    const res = await client.sendTo(leader, 27, {
      markers: [{ ...producer, transactionResult: false, topics: [{ name: topic, partitionIndexes: [partition] }] }],
    });
    check(res.markers[0].topics[0].partitions[0].errorCode, `aborting the transaction of producer ${producer.producerId} on ${topic}-${partition}`);
    const result = { topic, partition, ...producer, aborted: true };
    ctx.print([result], columns('topic', 'partition', 'producerId', 'producerEpoch', 'coordinatorEpoch', 'aborted'), result);
  },
};

const producers: Command = {
  name: 'transactions describe-producers',
  summary: 'the active producers of a partition, with the start offsets of their open transactions',
  usage: `--topic T --partition P`,
  options: { topic: { type: 'string' }, partition: { type: 'string' } },
  async run(ctx) {
    const topic = requireOption(ctx.values, 'topic');
    const partition = intOption(ctx.values, 'partition', 0);
    if (partition === undefined) throw new UsageError('--partition is required');
    const client = await ctx.client();
    const [md] = await client.topics([topic]);
    const leader = md.partitions.find((p) => p.partition === partition)?.leader;
    if (leader === undefined) throw new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${partition}`);
    const res = await client.sendTo(leader, 61, { topics: [{ name: topic, partitionIndexes: [partition] }] });
    const p = res.topics[0].partitions[0];
    check(p.errorCode, `describing the producers of ${topic}-${partition}`, p.errorMessage);
    const rows = p.activeProducers.map((a) => ({ ...a, currentTxnStartOffset: a.currentTxnStartOffset < 0 ? null : a.currentTxnStartOffset }));
    ctx.print(rows, columns('producerId', 'producerEpoch', 'lastSequence', 'lastTimestamp', 'coordinatorEpoch', 'currentTxnStartOffset'));
  },
};

export const TRANSACTION_COMMANDS = [list, describe, producers, abort];
