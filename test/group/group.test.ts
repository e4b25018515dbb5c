// Group.subscribedTopics reads each member's consumer protocol subscription with the generic codec
// (protocol/data/consumer-protocol.ts), whatever version the client wrote. Group.transitionTo refuses the
// moves Kafka's state machine does not have.
import { describe, expect, it } from 'vitest';
import { Group, Member } from '../../src/group/group.js';
import { ConsumerProtocolSubscription } from '../../protocol/data/consumer-protocol.js';
import { writeVersioned } from '../../protocol/data/versioned.js';

function groupWith(protocolType: string, ...subscriptions: Buffer[]): Group {
  const g = new Group('g');
  g.protocolType = protocolType;
  g.protocolName = 'range';
  subscriptions.forEach((metadata, i) => {
    g.members.set(`m${i}`, new Member(`m${i}`, null, 'c', 'h', 1000, 1000, protocolType, [{ name: 'range', metadata }]));
  });
  return g;
}

describe('Group.subscribedTopics', () => {
  it('unions the topics of every member, from v0 to v3 subscriptions', () => {
    const v0 = writeVersioned(ConsumerProtocolSubscription, 0, { topics: ['a', 'b'] });
    const v3 = writeVersioned(ConsumerProtocolSubscription, 3, {
      topics: ['c'],
      userData: Buffer.from('x'),
      ownedPartitions: [{ topic: 'c', partitions: [0, 1] }],
      generationId: 7,
      rackId: 'r1',
    });
    expect(groupWith('consumer', v0, v3).subscribedTopics()).toEqual(new Set(['a', 'b', 'c']));
  });

  it('reads a newer version than it knows as the newest one (later versions only append fields)', () => {
    const v3 = writeVersioned(ConsumerProtocolSubscription, 3, { topics: ['t'], rackId: null });
    const v9 = Buffer.concat([Buffer.from([0, 9]), v3.subarray(2), Buffer.from([1, 2, 3])]);
    expect(groupWith('consumer', v9).subscribedTopics()).toEqual(new Set(['t']));
  });

  it('is unknown (null) for another protocol type or a subscription that does not parse', () => {
    const ok = writeVersioned(ConsumerProtocolSubscription, 0, { topics: ['a'] });
    expect(groupWith('connect', ok).subscribedTopics()).toBeNull();
    expect(groupWith('consumer', ok, ok.subarray(0, ok.length - 2)).subscribedTopics()).toBeNull();
  });
});

describe('Group.transitionTo', () => {
  it('moves only from the states Kafka allows, and stamps when it moved', () => {
    const g = new Group('g');
    expect(() => g.transitionTo('Stable', 1)).toThrow(/Empty -> Stable/);
    g.transitionTo('PreparingRebalance', 5);
    expect([g.state, g.currentStateTimestamp]).toEqual(['PreparingRebalance', 5]);
    expect(() => g.transitionTo('PreparingRebalance', 6)).toThrow();
    expect(() => g.transitionTo('Stable', 6)).toThrow();
    g.transitionTo('CompletingRebalance', 7);
    g.transitionTo('Stable', 8);
    g.transitionTo('Dead', 9);
    g.transitionTo('Dead', 10);
    expect([g.state, g.currentStateTimestamp]).toEqual(['Dead', 10]);
  });
});
