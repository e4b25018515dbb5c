// Apache Kafka 4.4.0's kafka-acls against a krill with an authorizer: --add, --list and --remove, and the
// ACLs it sets taking effect for a kafkajs producer. The tool and the producer are both User:ANONYMOUS
// from 127.0.0.1 (PLAINTEXT); that principal holds ALTER on the cluster from krill-acls.json, written
// before the start as an operator would, so it may manage ACLs but write to no topic until granted.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { describeWithToolchain } from '../toolchain.js';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { useTempDirs } from '../../test/helpers.js';
import { runTool, tool, toolsMissing, unique, type Tool } from './tools.js';

const dirs = useTempDirs('krill-tools-acls-');
let broker: RunningBroker;
let bs: string[];
let producer: Producer;

async function send(topic: string): Promise<string> {
  try {
    await producer.send({ topic, messages: [{ value: 'v' }] });
    return 'sent';
  } catch (err) {
    // kafkajs's Metadata refusal, or its produce refusal wrapped in a retry error.
    const e = err as { type?: string; cause?: { type?: string }; message: string };
    return e.type ?? e.cause?.type ?? (/Topic authorization failed/.test(e.message) ? 'TOPIC_AUTHORIZATION_FAILED' : e.message);
  }
}

describeWithToolchain('Kafka 4.4.0 kafka-acls against krill', toolsMissing, { timeout: 90_000 }, () => {
  beforeAll(async () => {
    const dataDir = dirs();
    const acl = (resourceType: string, resourceName: string, operation: string) => ({
      resourceType,
      patternType: 'LITERAL',
      resourceName,
      principal: 'User:ANONYMOUS',
      host: '*',
      operation,
      permissionType: 'ALLOW',
    });
    fs.writeFileSync(path.join(dataDir, 'krill-acls.json'), JSON.stringify({ version: 1, acls: [acl('CLUSTER', 'kafka-cluster', 'ALL')] }));
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir, config: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' } });
    bs = ['--bootstrap-server', broker.bootstrap];
    producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer({ allowAutoTopicCreation: false });
    await producer.connect();
  });
  afterAll(async () => {
    await producer?.disconnect();
    await broker?.close();
  });

  // The Java Admin behind Kafka's tools, on the cluster-level APIs kafkajs lacks: refused on a broker where
  // User:ANONYMOUS holds no ACL, served where it holds ALL on the cluster (the broker above).
  it('kafka-log-dirs, kafka-reassign-partitions and kafka-configs need the cluster ACLs Kafka asks for', async () => {
    const bare = await startBroker({ port: 0, host: '127.0.0.1', config: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' } });
    try {
      const commands: [Tool, string[]][] = [
        ['kafka-log-dirs', ['--describe']],
        ['kafka-reassign-partitions', ['--list']],
        ['kafka-configs', ['--describe', '--entity-type', 'brokers', '--entity-name', '1']],
      ];
      for (const [name, args] of commands) {
        const refused = await runTool(name, ['--bootstrap-server', bare.bootstrap, ...args]);
        expect(`${refused.stdout}${refused.stderr}`, name).toMatch(/ClusterAuthorizationException|Cluster authorization failed/);
        const served = await runTool(name, [...bs, ...args]);
        expect(served.code, `${name}: ${served.stderr}`).toBe(0);
      }
      // Listings leave out what may not be described, as Kafka's do.
      const groups = await tool('kafka-consumer-groups', ['--bootstrap-server', bare.bootstrap, '--list']);
      expect(groups.stdout.trim()).toBe('');
    } finally {
      await bare.close();
    }
  });

  it('--add, --list and --remove, each in force at once', async () => {
    const topic = unique('acls');
    // CREATE on the cluster (ALL) lets the tool's principal create the topic; writing to it needs WRITE on it.
    await tool('kafka-topics', [...bs, '--create', '--topic', topic]);
    expect(await send(topic)).toBe('TOPIC_AUTHORIZATION_FAILED');

    const added = await tool('kafka-acls', [...bs, '--add', '--allow-principal', 'User:ANONYMOUS', '--operation', 'Write', '--topic', topic]);
    const entry = '(principal=User:ANONYMOUS, host=*, operation=WRITE, permissionType=ALLOW)';
    expect(added.stdout).toContain(entry);
    expect(await send(topic)).toBe('sent');

    const listed = await tool('kafka-acls', [...bs, '--list', '--topic', topic]);
    expect(listed.stdout).toContain(`ResourcePattern(resourceType=TOPIC, name=${topic}, patternType=LITERAL)`);
    expect(listed.stdout).toContain(entry);

    const prefixed = await tool('kafka-acls', [
      ...bs,
      '--add',
      '--deny-principal',
      'User:ANONYMOUS',
      '--operation',
      'Write',
      '--topic',
      topic.slice(0, 10),
      '--resource-pattern-type',
      'prefixed',
    ]);
    expect(prefixed.stdout).toContain('permissionType=DENY');
    expect(await send(topic)).toBe('TOPIC_AUTHORIZATION_FAILED');

    await tool('kafka-acls', [...bs, '--remove', '--force', '--topic', topic.slice(0, 10), '--resource-pattern-type', 'prefixed']);
    expect(await send(topic)).toBe('sent');
    await tool('kafka-acls', [...bs, '--remove', '--force', '--topic', topic]);
    expect(await send(topic)).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect((await tool('kafka-acls', [...bs, '--list', '--topic', topic])).stdout).not.toContain(entry);
  });
});
