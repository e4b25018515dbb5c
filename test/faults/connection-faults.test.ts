// Faults as the connection applies them, seen from a raw client: the order of pipelined responses around a
// held request, a failed acks=0 produce closing its connection, delays, and faults aimed at one client id.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { TestClient, decodeResponse, encodeRequest } from '../server/client.js';
import { API, createTopic, metadataBody, produceBody, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const live = useBrokerAndClient();

describe('faults on a connection', () => {
  it('a held request holds back the responses pipelined behind it, and all come once it is removed', async () => {
    const c = await TestClient.connect(live.broker.port);
    const held = live.broker.faults.inject({ api: 'Metadata', hold: true });
    const answered: string[] = [];
    const first = c.request(API.Metadata, 12, metadataBody(null)).then(() => answered.push('metadata'));
    const second = c.request(API.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' }).then(() => answered.push('api-versions'));
    await held.fired();
    // The broker has the Metadata request and holds it; ApiVersions waits behind it, as Kafka orders them.
    const probe = await TestClient.connect(live.broker.port);
    await probe.request(API.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    probe.close();
    expect(answered).toEqual([]);
    held.remove();
    await Promise.all([first, second]);
    expect(answered).toEqual(['metadata', 'api-versions']);
    c.close();
  });

  it('an error for an acks=0 produce closes the connection, as Kafka signals a failure it cannot answer', async () => {
    const topic = uniqueTopic('acks0');
    await createTopic(live.client, topic);
    const c = await TestClient.connect(live.broker.port);
    const fault = live.broker.faults.inject({ api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER' });
    const closed = c.sendRaw(encodeRequest(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value: 'v' }]), 0), 1));
    expect(await closed).toBeNull();
    expect(c.closed).toBe(true);
    expect(fault.hits).toBe(1);
  });

  it('a delay alone serves the request as usual, late', async () => {
    const topic = uniqueTopic('delayed');
    await createTopic(live.client, topic);
    const fault = live.broker.faults.inject({ api: 'Produce', topic, delayMs: 20 });
    const res = await live.client.request(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value: 'v' }])));
    expect(res.responses[0].partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0 });
    expect(fault.hits).toBe(1);
    expect(fault.active).toBe(false);
  });

  it('a fault aimed at a client id leaves other clients alone, and `always` lasts until removed', async () => {
    const fault = live.broker.faults.inject({ api: 'Metadata', clientId: 'aimed', error: 'BROKER_NOT_AVAILABLE', count: 'always' });
    const aimed = await TestClient.connect(live.broker.port);
    const body = metadataBody(['some-topic'], false);
    const topicErrorFor = async (clientId: string) => {
      const frame = await aimed.sendRaw(encodeRequest(API.Metadata, 12, body, 1, clientId));
      return decodeResponse(API.Metadata, 12, frame!).body.topics[0].errorCode;
    };
    expect([await topicErrorFor('aimed'), await topicErrorFor('aimed'), await topicErrorFor('bystander')]).toEqual([
      ErrorCode.BROKER_NOT_AVAILABLE,
      ErrorCode.BROKER_NOT_AVAILABLE,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ]);
    expect(fault.hits).toBe(2);
    fault.remove();
    expect(await topicErrorFor('aimed')).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    await expect(fault.fired(3)).rejects.toThrow(`fault ${fault.id} was removed after 2 of 3 hits`);
    aimed.close();
  });
});
