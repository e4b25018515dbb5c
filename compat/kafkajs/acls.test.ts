// Compatibility: kafkajs's admin.createAcls / describeAcls / deleteAcls and its producer, consumer and admin
// against a krill with an authorizer. Every connection here is User:ANONYMOUS (PLAINTEXT); the admin's
// connections come from 127.0.0.2 (all of 127/8 is loopback), the tested client's from 127.0.0.1, so host
// ACLs tell them apart: the admin holds ALLOW ALL for its host, set while User:ANONYMOUS was a super user,
// before a restart that also shows the ACLs persist.

import { createRequire } from 'node:module';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { useTempDirs } from '../../test/helpers.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const ADMIN_HOST = '127.0.0.2';
const CLIENT_HOST = '127.0.0.1';
const ANONYMOUS = 'User:ANONYMOUS';

function kafka(bootstrap: string, localAddress: string): any {
  return new Kafka({
    clientId: 'krill-compat-acls',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 0 },
    socketFactory: ({ host, port, onConnect }: { host: string; port: number; onConnect: () => void }) => net.connect({ host, port, localAddress }, onConnect),
  });
}

const tempDirs = useTempDirs('krill-kafkajs-acls-');
let seq = 0;
const unique = (label: string) => `acl-${label}-${process.pid}-${++seq}`;

const acl = (resourceType: number, resourceName: string, operation: number, more: Record<string, unknown> = {}) => ({
  resourceType,
  resourceName,
  resourcePatternType: ResourcePatternTypes.LITERAL,
  principal: ANONYMOUS,
  host: CLIENT_HOST,
  operation,
  permissionType: AclPermissionTypes.ALLOW,
  ...more,
});

/** The admin's own ACLs: everything (the literal wildcard `*`), from its host. */
const ADMIN_ACLS = [AclResourceTypes.TOPIC, AclResourceTypes.GROUP, AclResourceTypes.TRANSACTIONAL_ID]
  .map((type: number) => acl(type, '*', AclOperationTypes.ALL, { host: ADMIN_HOST }))
  .concat([acl(AclResourceTypes.CLUSTER, 'kafka-cluster', AclOperationTypes.ALL, { host: ADMIN_HOST })]);

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err: any) {
    return err.type ?? err.cause?.type ?? err.errors?.[0]?.type ?? String(err.message);
  }
  return 'allowed';
}

describe(`kafkajs ${require('kafkajs/package.json').version} against krill with ACLs`, { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let dataDir: string;
  const config = { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer' };

  beforeAll(async () => {
    dataDir = tempDirs();
    const first = await startBroker({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      config: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer', 'super.users': ANONYMOUS },
    });
    const bootstrapAdmin = kafka(first.bootstrap, ADMIN_HOST).admin();
    await bootstrapAdmin.connect();
    await bootstrapAdmin.createAcls({ acl: ADMIN_ACLS });
    await bootstrapAdmin.disconnect();
    await first.close();
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir, config });
    admin = kafka(broker.bootstrap, ADMIN_HOST).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await broker?.close();
  });

  async function grant(...acls: ReturnType<typeof acl>[]): Promise<void> {
    await admin.createAcls({ acl: acls });
  }

  it('the ACLs set before the restart are in force after it, from the data dir', async () => {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    expect(resources).toHaveLength(4);
    expect(resources.find((r: any) => r.resourceType === AclResourceTypes.CLUSTER)).toMatchObject({
      resourceName: 'kafka-cluster',
      acls: [{ principal: ANONYMOUS, host: ADMIN_HOST, operation: AclOperationTypes.ALL, permissionType: AclPermissionTypes.ALLOW }],
    });
    const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'krill-acls.json'), 'utf8'));
    expect(file.acls).toContainEqual({
      resourceType: 'CLUSTER',
      patternType: 'LITERAL',
      resourceName: 'kafka-cluster',
      principal: ANONYMOUS,
      host: ADMIN_HOST,
      operation: 'ALL',
      permissionType: 'ALLOW',
    });
  });

  it('a producer needs WRITE on the topic (and DESCRIBE, which WRITE implies, for its metadata)', async () => {
    const topic = unique('produce');
    await admin.createTopics({ topics: [{ topic }] });
    const producer = kafka(broker.bootstrap, CLIENT_HOST).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      expect(await refusal(producer.send({ topic, messages: [{ value: 'refused' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
      await grant(acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.WRITE));
      const [sent] = await producer.send({ topic, messages: [{ value: 'allowed' }] });
      expect(sent).toMatchObject({ topicName: topic, errorCode: 0 });
      // DENY wins over ALLOW, for its host only: the admin's producer still writes.
      await grant(acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.WRITE, { permissionType: AclPermissionTypes.DENY }));
      expect(await refusal(producer.send({ topic, messages: [{ value: 'denied' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
      const adminProducer = kafka(broker.bootstrap, ADMIN_HOST).producer();
      await adminProducer.connect();
      await adminProducer.send({ topic, messages: [{ value: 'admin' }] });
      await adminProducer.disconnect();
    } finally {
      await producer.disconnect();
    }
  });

  it('a PREFIXED ACL covers every topic its name starts', async () => {
    const prefix = unique('prefixed');
    const topic = `${prefix}-orders`;
    await admin.createTopics({ topics: [{ topic }] });
    await grant(acl(AclResourceTypes.TOPIC, prefix, AclOperationTypes.WRITE, { resourcePatternType: ResourcePatternTypes.PREFIXED }));
    const producer = kafka(broker.bootstrap, CLIENT_HOST).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const [sent] = await producer.send({ topic, messages: [{ value: 'v' }] });
    await producer.disconnect();
    expect(sent.errorCode).toBe(0);
  });

  it('listing topics shows only those the client may describe', async () => {
    const seen = unique('seen');
    const hidden = unique('hidden');
    await admin.createTopics({ topics: [{ topic: seen }, { topic: hidden }] });
    await grant(acl(AclResourceTypes.TOPIC, seen, AclOperationTypes.DESCRIBE));
    const client = kafka(broker.bootstrap, CLIENT_HOST).admin();
    await client.connect();
    try {
      const listed = await client.listTopics();
      expect(listed).toContain(seen);
      expect(listed).not.toContain(hidden);
      expect(await admin.listTopics()).toContain(hidden);
    } finally {
      await client.disconnect();
    }
  });

  it('creating topics needs CREATE on the cluster or on the topic', async () => {
    const client = kafka(broker.bootstrap, CLIENT_HOST).admin();
    await client.connect();
    try {
      const topic = unique('create');
      expect(await refusal(client.createTopics({ topics: [{ topic }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
      // CREATE alone creates; kafkajs then reads the new topic's metadata, which needs DESCRIBE.
      await grant(acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.CREATE), acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.DESCRIBE));
      expect(await client.createTopics({ topics: [{ topic }] })).toBe(true);
      expect(await admin.listTopics()).toContain(topic);
    } finally {
      await client.disconnect();
    }
  });

  it('a consumer needs READ on its group and on the topic', async () => {
    const topic = unique('consume');
    const groupId = unique('group');
    await admin.createTopics({ topics: [{ topic }] });
    const adminProducer = kafka(broker.bootstrap, ADMIN_HOST).producer();
    await adminProducer.connect();
    await adminProducer.send({ topic, messages: [{ value: 'for the consumer' }] });
    await adminProducer.disconnect();

    const crashOf = async (consumer: any): Promise<string> => {
      const crashed = new Promise<string>((resolve) =>
        consumer.on(consumer.events.CRASH, (e: any) => resolve(e.payload.error.type ?? e.payload.error.message)),
      );
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async () => {} });
      return crashed;
    };
    const noTopic = kafka(broker.bootstrap, CLIENT_HOST).consumer({ groupId });
    await noTopic.connect();
    expect(await refusal(noTopic.subscribe({ topic, fromBeginning: true }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    await noTopic.disconnect();

    await grant(acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.READ));
    const noGroup = kafka(broker.bootstrap, CLIENT_HOST).consumer({ groupId, retry: { retries: 0 } });
    // FindCoordinator is refused with GROUP_AUTHORIZATION_FAILED, which kafkajs reports without its cause.
    expect(await crashOf(noGroup)).toBe('Failed to find group coordinator');
    await noGroup.disconnect();

    await grant(acl(AclResourceTypes.GROUP, groupId, AclOperationTypes.READ));
    const consumer = kafka(broker.bootstrap, CLIENT_HOST).consumer({ groupId });
    const got = new Promise<string>((resolve) => {
      void consumer.connect().then(async () => {
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({ eachMessage: async ({ message }: any) => resolve(message.value.toString()) });
      });
    });
    expect(await got).toBe('for the consumer');
    await consumer.disconnect();
  });

  it('deleteAcls removes what its filter matches and reports it', async () => {
    const topic = unique('delete');
    await grant(acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.READ), acl(AclResourceTypes.TOPIC, topic, AclOperationTypes.WRITE));
    const { filterResponses } = await admin.deleteAcls({
      filters: [
        {
          resourceType: AclResourceTypes.TOPIC,
          resourceName: topic,
          resourcePatternType: ResourcePatternTypes.LITERAL,
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ANY,
        },
      ],
    });
    expect(filterResponses[0].errorCode).toBe(0);
    expect(filterResponses[0].matchingAcls.map((m: any) => m.operation).sort()).toEqual([AclOperationTypes.READ, AclOperationTypes.WRITE]);
    const after = await admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourceName: topic,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    expect(after.resources).toEqual([]);
  });

  it('refuses ACLs Kafka refuses, and those on delegation tokens, which krill has none of', async () => {
    expect(await refusal(grant(acl(AclResourceTypes.CLUSTER, 'not-the-cluster', AclOperationTypes.ALTER)))).toBe('INVALID_REQUEST');
    expect(await refusal(grant(acl(AclResourceTypes.DELEGATION_TOKEN, 'token', AclOperationTypes.DESCRIBE)))).toBe('INVALID_REQUEST');
    expect(await refusal(grant(acl(AclResourceTypes.TOPIC, 't', AclOperationTypes.READ, { principal: 'ANONYMOUS' })))).toBe('INVALID_REQUEST');
  });

  it('managing ACLs needs ALTER on the cluster, describing them DESCRIBE', async () => {
    const client = kafka(broker.bootstrap, CLIENT_HOST).admin();
    await client.connect();
    try {
      expect(await refusal(client.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'x', AclOperationTypes.READ)] }))).toBe('CLUSTER_AUTHORIZATION_FAILED');
      const filter = {
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      };
      expect(await refusal(client.describeAcls(filter))).toBe('CLUSTER_AUTHORIZATION_FAILED');
      expect(await refusal(client.deleteAcls({ filters: [filter] }))).toBe('CLUSTER_AUTHORIZATION_FAILED');
    } finally {
      await client.disconnect();
    }
  });
});

describe('without an authorizer', () => {
  it('the ACL APIs answer SECURITY_DISABLED, as Kafka', async () => {
    const plain = await startBroker({ port: 0, host: '127.0.0.1' });
    const admin = kafka(plain.bootstrap, CLIENT_HOST).admin();
    await admin.connect();
    try {
      expect(await refusal(admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 't', AclOperationTypes.READ)] }))).toBe('SECURITY_DISABLED');
    } finally {
      await admin.disconnect();
      await plain.close();
    }
  });

  it('an authorizer.class.name krill does not have stops the start', async () => {
    await expect(startBroker({ port: 0, host: '127.0.0.1', config: { 'authorizer.class.name': 'com.example.MyAuthorizer' } })).rejects.toThrow(
      /authorizer.class.name: 'com.example.MyAuthorizer' is not an authorizer krill has/,
    );
  });
});
