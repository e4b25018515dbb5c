// The topic assignment znode of a partition being reassigned, as Kafka's TopicZNode writes and reads it:
// "partitions" with targets and originals together, "adding_replicas" / "removing_replicas" naming only the
// partitions being moved.
import { describe, expect, it } from 'vitest';
import { decodeTopicAssignment, encodeTopicAssignment } from '../../src/cluster/zk/znodes.js';

const topicId = Buffer.alloc(16, 7);

describe('the assignment znode of a reassignment', () => {
  it('is written as Kafka writes it and read back', () => {
    const data = encodeTopicAssignment(
      topicId,
      new Map([
        [1, [3]],
        [0, [2, 3, 1]],
      ]),
      {
        adding: new Map([
          [0, [3]],
          [1, []],
        ]),
        removing: new Map([[0, [1]]]),
      },
    );
    expect(data.toString('utf8')).toBe(
      `{"partitions":{"0":[2,3,1],"1":[3]},"topic_id":"${topicId.toString('base64url')}","adding_replicas":{"0":[3]},"removing_replicas":{"0":[1]},"version":3}`,
    );
    const read = decodeTopicAssignment('/t', data);
    expect(read.partitions).toEqual(
      new Map([
        [0, [2, 3, 1]],
        [1, [3]],
      ]),
    );
    expect(read.reassigning).toEqual({ adding: new Map([[0, [3]]]), removing: new Map([[0, [1]]]) });
  });

  it('reads nodes without the lists (before version 2) as nothing moving, and refuses malformed ones', () => {
    expect(decodeTopicAssignment('/t', Buffer.from('{"version":1,"partitions":{"0":[1]}}')).reassigning).toEqual({ adding: new Map(), removing: new Map() });
    expect(() => decodeTopicAssignment('/t', Buffer.from('{"version":2,"partitions":{"0":[1]},"adding_replicas":[1]}'))).toThrow(
      '"adding_replicas" is not an object',
    );
    expect(() => decodeTopicAssignment('/t', Buffer.from('{"version":2,"partitions":{"0":[1]},"removing_replicas":{"0":["x"]}}'))).toThrow(
      'malformed znode /t',
    );
  });
});
