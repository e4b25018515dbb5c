// The transaction coordinator's state machine against an in-memory host: what it persists, which markers it
// writes, and what a load after a crash completes.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { TransactionCoordinator, type TransactionMetadata, type TxnCoordinatorHost } from '../../src/txn/coordinator.js';

function host() {
  const persisted: string[] = [];
  const markers: string[] = [];
  const failing = new Set<string>();
  let now = 1_000;
  let nextId = 100;
  const h: TxnCoordinatorHost = {
    generateProducerId: () => nextId++,
    persist: (m) => persisted.push(`${m.transactionalId}:${m.state}:${m.producerEpoch}`),
    forget: (id) => persisted.push(`${id}:forgotten`),
    writeMarker: (topic, p, producerId, epoch, commit) => {
      if (failing.has(`${topic}-${p}`)) throw new Error('disk full');
      markers.push(`${topic}-${p}:${producerId}/${epoch}:${commit ? 'commit' : 'abort'}`);
    },
    partitionExists: (topic) => topic !== 'gone',
    now: () => now,
  };
  return {
    h,
    persisted,
    markers,
    failing,
    setNow: (t: number) => {
      now = t;
    },
  };
}

describe('TransactionCoordinator', () => {
  it('completes, after a load, a transaction caught between its prepare record and its markers', () => {
    const { h, persisted, markers } = host();
    const c = new TransactionCoordinator(h, { maxTimeoutMs: 900_000 });
    const prepared = (id: string, state: TransactionMetadata['state']): TransactionMetadata => ({
      transactionalId: id,
      producerId: 7,
      producerEpoch: 3,
      timeoutMs: 60_000,
      state,
      partitions: new Map([
        ['t', new Set([0, 1])],
        ['gone', new Set([0])],
      ]),
      startTimestamp: 500,
      lastUpdateTimestamp: 900,
    });
    c.load(prepared('a', 'PrepareCommit'), 'a');
    c.load(prepared('b', 'PrepareAbort'), 'b');
    c.load(prepared('c', 'Ongoing'), 'c');
    c.completePrepared();
    expect(markers).toEqual(['t-0:7/3:commit', 't-1:7/3:commit', 't-0:7/3:abort', 't-1:7/3:abort']); // not on a deleted topic
    expect([c.get('a')!.state, c.get('b')!.state, c.get('c')!.state]).toEqual(['CompleteCommit', 'CompleteAbort', 'Ongoing']);
    expect(persisted).toEqual(['a:PrepareCommit:3', 'a:CompleteCommit:3', 'b:PrepareAbort:3', 'b:CompleteAbort:3']);
  });

  it('refuses a timeout above transaction.max.timeout.ms, and fences and aborts an open transaction on re-init (retry bumps again)', () => {
    const { h, markers } = host();
    const c = new TransactionCoordinator(h, { maxTimeoutMs: 10_000 });
    expect(c.initProducerId('x', 20_000, -1, -1).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const first = c.initProducerId('x', 5_000, -1, -1);
    expect(first).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 0 });
    c.addPartitions('x', 100, 0, [{ name: 't', partitions: [0] }]);
    expect(c.initProducerId('x', 5_000, -1, -1).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(markers).toEqual(['t-0:100/1:abort']);
    expect(c.initProducerId('x', 5_000, -1, -1)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 2 });
    expect(c.get('x')!.state).toBe('Empty');
    expect(c.endTxn('x', 100, 0, true)).toBe(ErrorCode.PRODUCER_FENCED);
  });

  it('keeps the producer id for the markers when the epoch runs out, and takes a new one at the next init', () => {
    const { h, markers } = host();
    const c = new TransactionCoordinator(h, { maxTimeoutMs: 60_000 });
    c.load(
      {
        transactionalId: 'e',
        producerId: 5,
        producerEpoch: 32766,
        timeoutMs: 1_000,
        state: 'Ongoing',
        partitions: new Map([['t', new Set([0])]]),
        startTimestamp: 0,
        lastUpdateTimestamp: 0,
      },
      'e',
    );
    expect(c.initProducerId('e', 1_000, -1, -1).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(markers).toEqual(['t-0:5/32767:abort']); // the transaction's own producer id
    expect(c.initProducerId('e', 1_000, -1, -1)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 0 });
  });

  it('leaves a transaction whose marker failed prepared, answering CONCURRENT_TRANSACTIONS, until a retry completes it', () => {
    const { h, markers, failing } = host();
    const c = new TransactionCoordinator(h, { maxTimeoutMs: 60_000 });
    const { producerId } = c.initProducerId('f', 1_000, -1, -1);
    c.addPartitions('f', producerId, 0, [{ name: 't', partitions: [0, 1] }]);
    failing.add('t-1');
    expect(() => c.endTxn('f', producerId, 0, true)).toThrow('disk full');
    expect(c.get('f')!.state).toBe('PrepareCommit');
    expect(c.endTxn('f', producerId, 0, true)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    failing.clear();
    c.retryPrepared();
    expect(c.get('f')!.state).toBe('CompleteCommit');
    expect(markers).toEqual(['t-0:100/0:commit', 't-1:100/0:commit']); // each partition marked once
    expect(c.endTxn('f', producerId, 0, true)).toBe(ErrorCode.NONE);
  });

  it('forgets transactional ids idle for transactional.id.expiration.ms, never one with a transaction open', () => {
    const { h, persisted, setNow } = host();
    const c = new TransactionCoordinator(h, { maxTimeoutMs: 60_000, idExpirationMs: 10_000 });
    c.initProducerId('idle', 1_000, -1, -1);
    const busy = c.initProducerId('busy', 60_000, -1, -1);
    c.addPartitions('busy', busy.producerId, 0, [{ name: 't', partitions: [0] }]);
    setNow(1_000 + 9_999);
    expect(c.expireIds()).toBe(0);
    setNow(1_000 + 10_000);
    expect(c.expireIds()).toBe(1);
    expect([c.get('idle'), c.get('busy')?.state]).toEqual([undefined, 'Ongoing']);
    expect(persisted).toContain('idle:forgotten');
  });
});
