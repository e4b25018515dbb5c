// A SASL_PLAINTEXT listener on the wire, through krill's test client: what may be sent before a login,
// PLAIN over SaslAuthenticate and over SaslHandshake v0's bare tokens, a refused login and its close,
// KIP-368's session lifetime, and SaslHandshake on a PLAINTEXT listener.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { RunningBroker } from '../../src/index.js';
import { plainClient, saslConfig } from './sasl-client.js';

/** Resolves once the connection has been closed by the broker. */
const closedBy = (client: TestClient) => client.sendRaw(Buffer.alloc(0)).then(() => client.closed);

describe('a SASL_PLAINTEXT listener', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await withBroker({ config: saslConfig({ 'connections.max.reauth.ms': 3_600_000 }) });
  });
  afterAll(() => broker?.close());

  it('serves ApiVersions before a login and closes on any other API', async () => {
    const client = await TestClient.connect(broker.port);
    const versions = await client.request(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    expect(versions.errorCode).toBe(0);
    await expect(client.request(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).rejects.toThrow(
      'connection closed',
    );
  });

  it('refuses a mechanism it does not enable, names those it does, and closes', async () => {
    const client = await TestClient.connect(broker.port);
    const hs = await client.request(17, 1, { mechanism: 'GSSAPI' });
    expect(hs).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] });
    expect(await closedBy(client)).toBe(true);
  });

  it('logs in with PLAIN, then serves every API and tells the session lifetime', async () => {
    const client = await TestClient.connect(broker.port);
    await client.request(17, 1, { mechanism: 'PLAIN' });
    const auth = await client.request(36, 1, { authBytes: Buffer.from('\0alice\0alice-secret') });
    expect(auth).toMatchObject({ errorCode: 0, sessionLifetimeMs: 3_600_000 });
    const md = await client.request(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(md.brokers).toHaveLength(1);
    const again = await client.request(36, 2, { authBytes: Buffer.from('\0alice\0alice-secret') });
    expect(again.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    client.close();
  });

  it('answers a wrong password with SASL_AUTHENTICATION_FAILED and its message, then closes', async () => {
    const client = await TestClient.connect(broker.port);
    await client.request(17, 1, { mechanism: 'PLAIN' });
    const auth = await client.request(36, 2, { authBytes: Buffer.from('\0alice\0wrong') });
    expect(auth).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Authentication failed: Invalid username or password' });
    expect(await closedBy(client)).toBe(true);
  });

  it('closes a connection that sends SaslAuthenticate before SaslHandshake', async () => {
    const client = await TestClient.connect(broker.port);
    await expect(client.request(36, 2, { authBytes: Buffer.from('\0alice\0alice-secret') })).rejects.toThrow('connection closed');
  });

  it("closes a connection whose frame before a login exceeds Kafka's sasl.server.max.receive.size", async () => {
    const client = await TestClient.connect(broker.port);
    const head = Buffer.alloc(4);
    head.writeInt32BE(524_289);
    expect(await client.sendRaw(head)).toBeNull();
  });

  it('takes bare tokens after SaslHandshake v0, as old clients send them', async () => {
    const client = await TestClient.connect(broker.port);
    expect((await client.request(17, 0, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    const token = Buffer.from('\0admin\0admin-secret');
    const frame = Buffer.concat([Buffer.alloc(4), token]);
    frame.writeInt32BE(token.length);
    expect(await client.sendRaw(frame)).toEqual(Buffer.alloc(0)); // PLAIN's empty final challenge
    const md = await client.request(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(md.brokers).toHaveLength(1);
    client.close();
  });

  it('re-authenticates a live connection with the same mechanism and principal', async () => {
    const client = await plainClient(broker.port, 'alice', 'alice-secret');
    expect((await client.request(17, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    const auth = await client.request(36, 2, { authBytes: Buffer.from('\0alice\0alice-secret') });
    expect(auth).toMatchObject({ errorCode: 0, sessionLifetimeMs: 3_600_000 });
    expect((await client.request(17, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    const other = await client.request(36, 2, { authBytes: Buffer.from('\0admin\0admin-secret') });
    expect(other).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: expect.stringContaining('Cannot change principals') });
    expect(await closedBy(client)).toBe(true);
  });
});

describe('a session that expires', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await withBroker({ config: saslConfig({ 'connections.max.reauth.ms': 1 }) });
  });
  afterAll(() => broker?.close());

  it('is closed at its next request when it was not re-authenticated', async () => {
    const client = await plainClient(broker.port);
    // The lifetime is 1 ms; the handshake below starts no earlier than the response to the login arrived.
    const started = Date.now();
    while (Date.now() <= started + 1); // the clock, not a timer: the session has expired once it passes 1 ms
    await expect(client.request(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).rejects.toThrow(
      'connection closed',
    );
  });
});

describe('a PLAINTEXT listener', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await withBroker();
  });
  afterAll(() => broker?.close());

  it('answers SaslHandshake and SaslAuthenticate with ILLEGAL_SASL_STATE, as Kafka does', async () => {
    const client = await TestClient.connect(broker.port);
    expect((await client.request(17, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect((await client.request(36, 2, { authBytes: Buffer.alloc(0) })).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    client.close();
  });
});
