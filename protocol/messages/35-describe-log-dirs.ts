// DescribeLogDirs (key 35): the broker's log directories and the size of each partition in them.
// v1 is the Kafka 4.0 baseline (KIP-896 removed v0); v2 goes flexible, v3 adds a top-level error code,
// v4 the volume's total and usable bytes.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeLogDirs = {
  apiKey: 35,
  name: 'DescribeLogDirs',
  validVersions: '1-4',
  flexibleVersions: '2+',
  request: [
    {
      name: 'topics',
      type: '[]DescribableLogDirTopic',
      versions: '0+',
      nullableVersions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        { name: 'partitions', type: '[]int32', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '3+' },
    {
      name: 'results',
      type: '[]DescribeLogDirsResult',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'logDir', type: 'string', versions: '0+' },
        {
          name: 'topics',
          type: '[]DescribeLogDirsTopic',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            {
              name: 'partitions',
              type: '[]DescribeLogDirsPartition',
              versions: '0+',
              fields: [
                { name: 'partitionIndex', type: 'int32', versions: '0+' },
                { name: 'partitionSize', type: 'int64', versions: '0+' },
                { name: 'offsetLag', type: 'int64', versions: '0+' },
                { name: 'isFutureKey', type: 'bool', versions: '0+' },
              ],
            },
          ],
        },
        { name: 'totalBytes', type: 'int64', versions: '4+', default: -1 },
        { name: 'usableBytes', type: 'int64', versions: '4+', default: -1 },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeLogDirsRequest = RequestOf<typeof DescribeLogDirs>;
export type DescribeLogDirsResponse = ResponseOf<typeof DescribeLogDirs>;
