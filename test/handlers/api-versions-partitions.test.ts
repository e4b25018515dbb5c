// The ranges ApiVersions advertises for the partition administration APIs: Kafka 4.0's (KIP-896 baselines).
import { expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { API } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();

it('ApiVersions lists OffsetForLeaderEpoch 2-4, DescribeLogDirs 1-4, CreatePartitions 0-3 and the reassignment APIs at v0', async () => {
  const res = await live.client.request(API.ApiVersions, 3, { clientSoftwareName: 'krill-test', clientSoftwareVersion: '1.0' });
  const ranges = new Map(res.apiKeys.map((k: Message) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  expect([23, 35, 37, 45, 46].map((key) => [key, ranges.get(key)])).toEqual([
    [23, [2, 4]],
    [35, [1, 4]],
    [37, [0, 3]],
    [45, [0, 0]],
    [46, [0, 0]],
  ]);
});
