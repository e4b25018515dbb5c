// Kafka's znode JSON (znodes.ts) without a ZooKeeper: older versions Kafka wrote, and malformed content.
import { describe, expect, it } from 'vitest';
import {
  decodeBrokerRegistration,
  decodeConfigChange,
  decodeController,
  decodeControllerEpoch,
  decodeEntityConfig,
  decodeProducerIdBlock,
  decodeTopicAssignment,
  encodeBrokerRegistration,
  MalformedZNodeError,
} from '../../src/cluster/zk/znodes.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('znodes', () => {
  it('reads broker registrations of every version Kafka wrote', () => {
    // Version 1-2: no endpoints.
    expect(decodeBrokerRegistration('/p', 1, b('{"jmx_port":-1,"timestamp":"1","host":"old","version":1,"port":9092}'))).toEqual({
      id: 1,
      host: 'old',
      port: 9092,
      rack: null,
      // As Kafka reads a registration without endpoints: one PLAINTEXT endpoint at host:port.
      endpoints: [{ listener: 'PLAINTEXT', host: 'old', port: 9092, securityProtocol: 'PLAINTEXT' }],
    });
    // A SASL_SSL-only broker: Kafka writes host null and port -1, the endpoint holds the address.
    expect(
      decodeBrokerRegistration(
        '/p',
        2,
        b(
          '{"listener_security_protocol_map":{"SECURE":"SASL_SSL"},"endpoints":["SECURE://[::1]:9094"],"rack":"r","jmx_port":-1,"host":null,"timestamp":"1","port":-1,"version":4}',
        ),
      ),
    ).toEqual({ id: 2, host: '::1', port: 9094, rack: 'r', endpoints: [{ listener: 'SECURE', host: '::1', port: 9094, securityProtocol: 'SASL_SSL' }] });
    const ours = encodeBrokerRegistration({ id: 3, host: 'h', port: 1, rack: 'east' }, 42);
    expect(JSON.parse(ours.toString())).toMatchObject({ rack: 'east', timestamp: '42', version: 5 });
    expect(decodeBrokerRegistration('/p', 3, ours)).toEqual({
      id: 3,
      host: 'h',
      port: 1,
      rack: 'east',
      endpoints: [{ listener: 'PLAINTEXT', host: 'h', port: 1, securityProtocol: 'PLAINTEXT' }],
    });
  });

  it('reads the controller in both of its forms, and the epoch', () => {
    expect(decodeController('/controller', b('{"version":1,"brokerid":4,"timestamp":"1"}'))).toBe(4);
    expect(decodeController('/controller', b('{"version":2,"brokerid":5,"timestamp":"1","kraftControllerEpoch":-1}'))).toBe(5);
    expect(decodeController('/controller', b('7'))).toBe(7);
    expect(decodeControllerEpoch('/controller_epoch', b('12'))).toBe(12);
    expect(() => decodeControllerEpoch('/controller_epoch', b('x'))).toThrow(MalformedZNodeError);
  });

  it('reads topic assignments written before topic ids', () => {
    const read = decodeTopicAssignment('/t', b('{"version":1,"partitions":{"1":[2],"0":[1]}}'));
    expect(read.topicId).toBeNull();
    expect(read.partitions).toEqual(
      new Map([
        [1, [2]],
        [0, [1]],
      ]),
    );
    expect(() => decodeTopicAssignment('/t', b('{"version":3,"partitions":{},"topic_id":"short"}'))).toThrow('16-byte uuid');
    expect(() => decodeTopicAssignment('/t', b('{"version":3,"partitions":{"x":[1]}}'))).toThrow('malformed znode /t');
  });

  it('reads configs and config changes of both notification versions', () => {
    expect(decodeEntityConfig('/c', null)).toEqual({});
    expect(decodeEntityConfig('/c', b('{"version":1,"config":{"a":"1"}}'))).toEqual({ a: '1' });
    expect(() => decodeEntityConfig('/c', b('{"version":1,"config":{"a":1}}'))).toThrow('config a is not a string');
    expect(decodeConfigChange('/n', b('{"version":1,"entity_type":"topics","entity_name":"t"}'))).toEqual({ entityType: 'topics', entityName: 't' });
    expect(decodeConfigChange('/n', b('{"version":2,"entity_path":"users/a/clients/b"}'))).toEqual({ entityType: 'users', entityName: 'a/clients/b' });
    expect(() => decodeConfigChange('/n', b('{"version":2,"entity_path":"nothing"}'))).toThrow(MalformedZNodeError);
  });

  it('reads producer id blocks, an empty node as none', () => {
    expect(decodeProducerIdBlock('/b', b(''))).toBeNull();
    expect(decodeProducerIdBlock('/b', b('{"version":1,"broker":0,"block_start":"1000","block_end":"1999"}'))).toEqual({ start: 1000, end: 1999 });
    expect(() => decodeProducerIdBlock('/b', b('{"version":1,"broker":0,"block_start":"9","block_end":"1"}'))).toThrow(MalformedZNodeError);
    expect(() => decodeProducerIdBlock('/b', b('{"version":1,"broker":0,"block_start":5,"block_end":"9"}'))).toThrow(MalformedZNodeError);
  });

  it('names the path of content that is not JSON, or not an object', () => {
    expect(() => decodeController('/controller', b('{'))).toThrow('malformed znode /controller: not JSON');
    expect(() => decodeTopicAssignment('/t', b('[1]'))).toThrow('malformed znode /t: not a JSON object');
    expect(() => decodeTopicAssignment('/t', null)).toThrow('malformed znode /t: no data');
  });
});
