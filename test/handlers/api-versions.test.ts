// ApiVersions (KIP-511 fallback included) and DescribeCluster on a live broker.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { TestClient, decodeResponse, encodeRequest } from '../server/client.js';
import { API } from '../server/kafka.js';

const live = useBrokerAndClient({ config: { 'node.id': '3' } });

const EXPECTED = [
  { apiKey: 0, minVersion: 0, maxVersion: 11 },
  { apiKey: 1, minVersion: 4, maxVersion: 17 },
  { apiKey: 2, minVersion: 1, maxVersion: 10 },
  { apiKey: 3, minVersion: 0, maxVersion: 12 },
  { apiKey: 18, minVersion: 0, maxVersion: 4 },
  { apiKey: 19, minVersion: 2, maxVersion: 7 },
  { apiKey: 20, minVersion: 1, maxVersion: 6 },
  // Admin.abortTransaction sends it to the partition's leader, a single broker too.
  { apiKey: 27, minVersion: 1, maxVersion: 1 },
  { apiKey: 60, minVersion: 0, maxVersion: 1 },
];

function checkList(apiKeys: { apiKey: number; minVersion: number; maxVersion: number }[]) {
  // Other handlers may be added over time; these ranges must be exactly as listed.
  for (const e of EXPECTED) expect(apiKeys.filter((k) => k.apiKey === e.apiKey)).toEqual([e]);
  const keys = apiKeys.map((k) => k.apiKey);
  expect(keys).toEqual([...keys].sort((a, b) => a - b));
  expect(new Set(keys).size).toBe(keys.length);
}

describe('ApiVersions', () => {
  it("refuses a client software name or version outside KIP-511's pattern (v3+) with INVALID_REQUEST and no list", async () => {
    for (const body of [
      { clientSoftwareName: '-starts-with-dash', clientSoftwareVersion: '1.0' },
      { clientSoftwareName: 'ok', clientSoftwareVersion: '1.0 beta' },
      { clientSoftwareName: '', clientSoftwareVersion: '1' },
    ]) {
      const res = await live.client.request(API.ApiVersions, 3, body);
      expect(res, JSON.stringify(body)).toMatchObject({ errorCode: 42, apiKeys: [] });
    }
  });

  for (const v of [0, 1, 2, 3, 4]) {
    it(`v${v} lists the served ranges`, async () => {
      const body = v >= 3 ? { clientSoftwareName: 'krill-test', clientSoftwareVersion: '1.0' } : {};
      const res = await live.client.request(API.ApiVersions, v, body);
      expect(res.errorCode).toBe(0);
      checkList(res.apiKeys);
      if (v >= 1) expect(res.throttleTimeMs).toBe(0);
    });
  }

  it("answers an unknown version (v99) at v0 with UNSUPPORTED_VERSION and ApiVersions' own range (KIP-511)", async () => {
    const frame = await live.client.sendRaw(encodeRequest(API.ApiVersions, 99, { clientSoftwareName: 'future', clientSoftwareVersion: '9' }, 4242));
    expect(frame).not.toBeNull();
    const { correlationId, body } = decodeResponse(API.ApiVersions, 0, frame!);
    expect(correlationId).toBe(4242);
    expect(body.errorCode).toBe(35);
    expect(body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
    // the connection stays usable
    const again = await live.client.request(API.ApiVersions, 3, { clientSoftwareName: 'krill-test', clientSoftwareVersion: '1.0' });
    expect(again.errorCode).toBe(0);
  });

  it('v3 flexible request on a fresh connection, response header v0', async () => {
    const c = await TestClient.connect(live.broker.port);
    const frame = await c.sendRaw(encodeRequest(API.ApiVersions, 3, { clientSoftwareName: 'x', clientSoftwareVersion: 'y' }, 77));
    c.close();
    // ApiVersions responses never carry the tagged-field header byte: correlation id then errorCode int16 0.
    expect(frame!.readInt32BE(0)).toBe(77);
    expect(frame!.readInt16BE(4)).toBe(0);
    const { body } = decodeResponse(API.ApiVersions, 3, frame!);
    checkList(body.apiKeys);
  });
});

describe('DescribeCluster', () => {
  it('v0 names this broker as the cluster and controller', async () => {
    const res = await live.client.request(API.DescribeCluster, 0, { includeClusterAuthorizedOperations: false });
    expect(res).toMatchObject({
      errorCode: 0,
      errorMessage: null,
      clusterId: live.broker.clusterId,
      controllerId: 3,
      brokers: [{ brokerId: 3, host: '127.0.0.1', port: live.broker.port, rack: null }],
    });
  });

  it('v1 echoes endpointType (1 brokers, 2 controllers)', async () => {
    for (const endpointType of [1, 2]) {
      const res = await live.client.request(API.DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType });
      expect(res).toMatchObject({
        errorCode: 0,
        endpointType,
        clusterId: live.broker.clusterId,
        controllerId: 3,
        brokers: [{ brokerId: 3, host: '127.0.0.1', port: live.broker.port, rack: null }],
      });
    }
  });
});
