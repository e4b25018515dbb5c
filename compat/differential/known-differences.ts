// Differences from Apache Kafka that krill keeps on purpose, each with its reason; the README's "Known
// differences from Apache Kafka" section says the same for users. An entry matches a difference by the label
// of the exchange (case, version, step) and the path of the field; the suite fails when an entry no longer
// matches anything, so this list cannot outlive what it describes.
import type { Difference } from './compare.js';

export interface KnownDifference {
  name: string;
  /** The case it occurs in: when that case runs, the difference must occur. */
  case: string;
  /** The label of the exchange, after the case's name: version and step. */
  label: RegExp;
  path: RegExp;
  reason: string;
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    name: 'auto-created topics are answered at once',
    case: 'Metadata auto-creates an unknown topic',
    label: / auto-create$/,
    path: /^topics\[0\]\.(errorCode|partitions\.length|topicId)$/,
    reason:
      'Kafka asks its controller to create the topic and answers UNKNOWN_TOPIC_OR_PARTITION until its metadata ' +
      'has it; krill creates it before answering, so the first Metadata already names its partitions.',
  },
  {
    name: 'krill serves older maximum versions of some APIs',
    case: 'ApiVersions at a version newer than any',
    label: / ApiVersions v99$/,
    path: /^apiKeys\[0\]\.maxVersion$/,
    reason:
      "An unsupported ApiVersions request is answered with ApiVersions' own range, which is each broker's own: " +
      "Kafka 4.4 serves v5, krill v4. Clients take the minimum of theirs and the broker's.",
  },
  {
    name: 'krill lists fewer APIs and no features',
    case: 'ApiVersions',
    label: / ordinary$/,
    path: /^(apiKeys|supportedFeatures|finalizedFeatures|finalizedFeaturesEpoch)\b/,
    reason:
      'krill advertises the APIs it serves (no KRaft, KIP-848, share-group or telemetry ones, and for some APIs ' +
      "older maximum versions), and no feature versions (metadata.version and the like are KRaft's).",
  },
  {
    name: "topic configs are Kafka 3.x's",
    case: 'CreateTopics: ordinary, duplicate, invalid',
    label: /^v(5|6|7) (create|validate only)$/,
    path: /^topics\[0\]\.configs\.length$/,
    reason:
      'krill describes the topic configs of Kafka 3.x (message.format.version, message.downconversion.enable, ' +
      'message.timestamp.difference.max.ms; message.timestamp.after.max.ms unbounded), not the 4.x additions ' +
      '(max.decompressed.message.bytes, remote.copy.lag.*, errors.deadletterqueue.group.enable), and not ' +
      'min.insync.replicas as a cluster-wide default (KRaft sets one when formatting). Moving the table to 4.x ' +
      'changes defaults users rely on (4.x refuses records stamped over an hour ahead) and is a change of its own.',
  },
  {
    name: 'an unknown IncrementalAlterConfigs operation is INVALID_REQUEST',
    case: 'AlterConfigs and IncrementalAlterConfigs: valid, invalid, unknown',
    label: / bad operation$/,
    path: /^responses\[0\]\.errorCode$/,
    reason:
      'Kafka 4.4 fails on an operation code outside 0-3 with an unexpected exception, UNKNOWN_SERVER_ERROR; ' +
      'krill refuses the request it cannot read as INVALID_REQUEST, the code Kafka gives other malformed requests.',
  },
  {
    name: 'a fetch reads across segments',
    case: 'Fetch across segments',
    label: /^v\d+ from [01]$/,
    path: /^responses\[0\]\.partitions\[0\]\.records\(decoded\)\.batches\.length$/,
    reason:
      "Kafka reads a partition's records from one segment per fetch and stops at its end; krill fills the answer " +
      'up to the byte limits across segment boundaries. Either way the client reads whole batches from its offset on.',
  },
];

export function isKnown(d: Difference): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((k) => d.label.startsWith(`${k.case} `) && k.label.test(d.label.slice(k.case.length + 1)) && k.path.test(d.path));
}
