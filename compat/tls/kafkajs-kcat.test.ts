// kafkajs and kcat (librdkafka) over TLS against a krill CLI process: an SSL listener, then mutual TLS
// (ssl.client.auth=required) where the client certificate's name, through ssl.principal.mapping.rules,
// is the principal every request runs as (read from the request log). A certificate from a CA the broker
// does not trust, and no certificate at all, are refused at the handshake.
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { CLI, type CliBroker } from '../../test/helpers.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { run, describeRun } from '../util.js';
import { logLine, requestLogged, sslListenerConfig, startSslCli, useTempDirs } from './tls-clients.js';

const dirs = useTempDirs('krill-tls-');

function kafkajs(broker: CliBroker, clientId: string, ssl: KafkaConfig['ssl']): Kafka {
  return new Kafka({ brokers: [broker.bootstrap], clientId, ssl, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
}

/** kcat's -X settings for TLS trusting `pki`'s CA, with `client`'s certificate when given. */
function kcatSsl(pki: Pki, client?: { cert: string; key: string }): string[] {
  const settings = ['security.protocol=ssl', `ssl.ca.location=${pki.caCert}`];
  if (client) settings.push(`ssl.certificate.location=${client.cert}`, `ssl.key.location=${client.key}`);
  return settings.flatMap((s) => ['-X', s]);
}

async function roundTrip(kafka: Kafka, topic: string): Promise<string> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ value: `over TLS to ${topic}` }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) }));
  const value = await got;
  await consumer.disconnect();
  return value;
}

describe('TLS: kafkajs and kcat', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.remove());

  describe('an SSL listener (ssl.client.auth=none)', () => {
    let broker: CliBroker;
    // Its own copy of the keystore, which the reload test rewrites.
    let keystore: string;
    beforeAll(async () => {
      keystore = path.join(pki.dir, 'broker-none.pem');
      fs.copyFileSync(pki.brokerPem, keystore);
      broker = await startSslCli({ ...sslListenerConfig(pki, 'none'), 'ssl.keystore.location': keystore }, dirs);
    });
    afterAll(async () => {
      broker?.proc.kill('SIGTERM');
      await broker?.exited;
    });

    it('kafkajs produces and consumes, as User:ANONYMOUS', async () => {
      const logged = requestLogged(broker.proc, 'kafkajs-ssl');
      const kafka = kafkajs(broker, 'kafkajs-ssl', { ca: [fs.readFileSync(pki.caCert, 'utf8')] });
      expect(await roundTrip(kafka, 'ssl-kafkajs')).toBe('over TLS to ssl-kafkajs');
      expect((await logged).principal).toBe('User:ANONYMOUS');
    }, 30_000);

    it('kcat produces and reads back, verifying the broker certificate', async () => {
      const ssl = [...kcatSsl(pki), '-X', 'ssl.endpoint.identification.algorithm=https'];
      const put = await run('kcat', ['-b', broker.bootstrap, ...ssl, '-P', '-t', 'ssl-kcat'], { input: 'one\ntwo\n' });
      expect(put.code, describeRun(put)).toBe(0);
      const got = await run('kcat', ['-b', broker.bootstrap, ...ssl, '-C', '-t', 'ssl-kcat', '-o', 'beginning', '-e', '-q']);
      expect(got.code, describeRun(got)).toBe(0);
      expect(got.stdout.trim().split('\n')).toEqual(['one', 'two']);
    }, 30_000);

    it('takes up a renewed certificate written over its keystore file, without a restart', async () => {
      const subjectSeen = () =>
        new Promise<string>((resolve, reject) => {
          const socket = tls.connect({ host: '127.0.0.1', port: broker.port, rejectUnauthorized: false }, () => {
            resolve(socket.getPeerX509Certificate()!.subject);
            socket.destroy();
          });
          socket.on('error', reject);
        });
      expect(await subjectSeen()).toBe('CN=localhost');
      const reloaded = logLine(broker.proc, (r) => r.msg === 'TLS keystore/truststore reloaded');
      // Replaced in one step, as certificate renewal tools do: written beside it, then renamed over it.
      fs.copyFileSync(pki.client('renewed', '/CN=renewed.localhost').pem, `${keystore}.new`);
      fs.renameSync(`${keystore}.new`, keystore);
      await reloaded;
      expect(await subjectSeen()).toBe('CN=renewed.localhost');
    }, 30_000);

    it('a PLAINTEXT client cannot speak to it', async () => {
      const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      const admin = kafka.admin();
      await expect(admin.connect()).rejects.toThrow();
    }, 30_000);
  });

  describe('mutual TLS (ssl.client.auth=required)', () => {
    let broker: CliBroker;
    beforeAll(async () => {
      broker = await startSslCli(sslListenerConfig(pki, 'required'), dirs);
    });
    afterAll(async () => {
      broker?.proc.kill('SIGTERM');
      await broker?.exited;
    });

    it("kafkajs runs as the principal mapped from its certificate's name", async () => {
      const alice = pki.client('alice', '/O=Krill/OU=Eng/CN=Alice');
      const logged = requestLogged(broker.proc, 'kafkajs-mtls');
      const kafka = kafkajs(broker, 'kafkajs-mtls', {
        ca: [fs.readFileSync(pki.caCert, 'utf8')],
        cert: fs.readFileSync(alice.cert, 'utf8'),
        key: fs.readFileSync(alice.key, 'utf8'),
      });
      expect(await roundTrip(kafka, 'mtls-kafkajs')).toBe('over TLS to mtls-kafkajs');
      expect((await logged).principal).toBe('User:alice');
    }, 30_000);

    it('kcat runs as its whole distinguished name (RFC 2253) when no rule but DEFAULT matches', async () => {
      const bob = pki.client('bob', '/C=NL/O=Krill, Inc./OU=Ops/CN=bob');
      const logged = requestLogged(broker.proc, 'kcat-mtls');
      const ssl = [...kcatSsl(pki, bob), '-X', 'client.id=kcat-mtls'];
      const meta = await run('kcat', ['-b', broker.bootstrap, ...ssl, '-L']);
      expect(meta.code, describeRun(meta)).toBe(0);
      expect(meta.stdout).toContain(`broker 1 at ${broker.bootstrap}`);
      expect((await logged).principal).toBe('User:CN=bob,OU=Ops,O=Krill\\, Inc.,C=NL');
    }, 30_000);

    it('krill topics list --command-config connects with Kafka client TLS properties, as its principal', async () => {
      const erin = pki.client('erin', '/O=Krill/OU=Eng/CN=Erin');
      const props = path.join(pki.dir, 'client.properties');
      fs.writeFileSync(
        props,
        `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${pki.caCert}\nssl.keystore.type=PEM\nssl.keystore.location=${erin.pem}\n`,
      );
      const logged = requestLogged(broker.proc, 'krill-cli');
      const r = await run(process.execPath, [CLI, 'topics', 'list', '--json', '--bootstrap-server', broker.bootstrap, '--command-config', props]);
      expect(r.code, describeRun(r)).toBe(0);
      expect((JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name)).toContain('mtls-kafkajs');
      expect((await logged).principal).toBe('User:erin');
      // Without it, the CLI speaks PLAINTEXT to the TLS listener and gets no answer it can read.
      const plain = await run(process.execPath, [CLI, 'topics', 'list', '--bootstrap-server', broker.bootstrap, '--request-timeout-ms', '5000']);
      expect(plain.code).not.toBe(0);
    }, 30_000);

    it('refuses a certificate from a CA it does not trust, and a client without one', async () => {
      const mallory = pki.client('mallory', '/O=Krill/OU=Eng/CN=mallory', { untrusted: true });
      const ca = [fs.readFileSync(pki.caCert, 'utf8')];
      const untrusted = kafkajs(broker, 'kafkajs-untrusted', {
        ca,
        cert: fs.readFileSync(mallory.cert, 'utf8'),
        key: fs.readFileSync(mallory.key, 'utf8'),
      }).admin();
      await expect(untrusted.connect()).rejects.toThrow();
      const anonymous = kafkajs(broker, 'kafkajs-no-cert', { ca }).admin();
      await expect(anonymous.connect()).rejects.toThrow();
      const ssl = kcatSsl(pki, mallory);
      const meta = await run('kcat', ['-b', broker.bootstrap, ...ssl, '-L', '-m', '5']);
      expect(meta.code).not.toBe(0);
    }, 30_000);
  });
});
