// confluent-kafka-python (PyPI wheel, librdkafka 2.x) and the Java client (kafka-clients 4.x) over mutual TLS
// against a krill CLI process: each produces and reads back with its own client certificate, and its requests
// run as the principal ssl.principal.mapping.rules makes of the certificate's name (read from the request log).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { describeWithToolchain } from '../toolchain.js';
import { encodeRecord, unb64 } from '../python/py.js';
import { venvMissing, venvPy } from '../pypi/pypi.js';
import { CLIENTS, java, javaMissing } from '../java/java.js';
import { requestLogged, sslListenerConfig, startSslCli, useTempDirs } from './tls-clients.js';

const dirs = useTempDirs('krill-tls-');
const TIMEOUT = 120_000;

let pki: Pki;
let broker: CliBroker;
beforeAll(async () => {
  pki = makePki();
  broker = await startSslCli(sslListenerConfig(pki, 'required'), dirs);
});
afterAll(async () => {
  broker?.proc.kill('SIGTERM');
  await broker?.exited;
  pki?.remove();
});

describeWithToolchain('TLS: confluent-kafka-python', venvMissing, { timeout: TIMEOUT }, () => {
  it('produces and consumes over mutual TLS, as the mapped principal', async () => {
    const carol = pki.client('carol', '/O=Krill/OU=Eng/CN=Carol');
    const conf = {
      'security.protocol': 'ssl',
      'ssl.ca.location': pki.caCert,
      'ssl.certificate.location': carol.cert,
      'ssl.key.location': carol.key,
      'client.id': 'python-mtls',
    };
    const logged = requestLogged(broker.proc, 'python-mtls');
    const records = ['a', 'b', 'c'].map((value) => encodeRecord({ key: null, value, headers: null, partition: 0 }));
    const produced = await venvPy<{ reports: { error?: string }[] }>('ck_client.py', 'produce', {
      bootstrap: broker.bootstrap,
      topic: 'tls-python',
      records,
      conf,
    });
    expect(produced.reports.every((r) => r.error === undefined)).toBe(true);
    const consumed = await venvPy<{ messages: { value: string }[] }>('ck_client.py', 'consume', {
      bootstrap: broker.bootstrap,
      topic: 'tls-python',
      partitions: [0],
      count: 3,
      conf,
    });
    expect(consumed.messages.map((m) => unb64(m.value))).toEqual(['a', 'b', 'c']);
    expect((await logged).principal).toBe('User:carol');
  });
});

describeWithToolchain('TLS: the Java client', javaMissing, { timeout: TIMEOUT }, () => {
  it('produces and consumes in a group over mutual TLS, with PEM keystore and truststore, as the mapped principal', async () => {
    const dave = pki.client('dave', '/O=Krill/OU=Eng/CN=Dave');
    const logged = requestLogged(broker.proc, 'java-mtls');
    const res = await java<{ runs: { received: { value: string }[] }[] }>(CLIENTS[0], 'produce_consume', {
      bootstrap: broker.bootstrap,
      config: {
        'security.protocol': 'SSL',
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.location': pki.caCert,
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': dave.pem,
        'client.id': 'java-mtls',
      },
      create: [{ name: 'tls-java', partitions: 1 }],
      runs: [{ topic: 'tls-java', group: 'tls-java-group' }],
      records: ['x', 'y'].map((value) => ({ partition: 0, key: null, value, headers: [] })),
    });
    expect(res.runs[0].received.map((r) => r.value)).toEqual(['x', 'y']);
    expect((await logged).principal).toBe('User:dave');
  });
});
