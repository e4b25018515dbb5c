// Runs kafkajs's own test suite (its spec files, from a checkout of github.com/tulios/kafkajs with its
// devDependencies installed) against a three-broker krill cluster laid out as kafkajs's
// docker-compose.2_4.yml lays out Kafka: brokers on localhost with PLAINTEXT on 9092/9095/9098, SSL on
// 9093/9096/9099 and SASL_SSL on 9094/9097/9100, PLAIN and SCRAM users as its server-jaas.conf and
// createScramCredentials.sh make them, an ACL authorizer that allows everyone when no ACL is found.
//
// Not part of `npm test`: it needs kafkajs's repository, which the registries do not ship (the npm package
// has no specs). Usage, after `npm run build` and compat/kafka-tools/install.sh:
//   npx vite-node compat/kafkajs-suite/run.ts -- <kafkajs checkout> [spec file or pattern ...]
// Prints jest's summary and a line per spec file: passed, failed.
// Environment: KRILL_KAFKAJS_PLAINTEXT_ONLY=1 starts the brokers with PLAINTEXT listeners only (the layout
// of a krill without TLS and SASL, to count what fails for want of them); KRILL_KAFKAJS_OAUTHBEARER=1 lays
// the SASL_SSL listeners out as docker-compose.2_4_oauthbearer.yml does (OAUTHBEARER only, re-authentication
// every 15 s) and runs the specs with OAUTHBEARER_ENABLED=1, as kafkajs's test:group:oauthbearer does.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startZooKeeper } from '../../src/cluster/zookeeper-server.js';
import { javaCommand } from '../jvm.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(ROOT, 'dist', 'src', 'bin', 'krill.cjs');
const TOOLS_CLASSPATH = path.join(ROOT, 'compat', 'kafka-tools', 'target', 'classpath.txt');
const PLAINTEXT_ONLY = process.env.KRILL_KAFKAJS_PLAINTEXT_ONLY === '1';
const OAUTHBEARER = process.env.KRILL_KAFKAJS_OAUTHBEARER === '1';
const PLAIN_USERS = 'username="test" password="testtest" user_test="testtest" user_bob="bobbob" user_alice="alicealice"';

/** A self-signed certificate for localhost; kafkajs's specs connect with rejectUnauthorized: false. */
function makeCertificate(dir: string): string {
  const pem = path.join(dir, 'broker.pem');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  fs.writeFileSync(pem, fs.readFileSync(key, 'utf8') + fs.readFileSync(cert, 'utf8'));
  return pem;
}

function brokerConfig(id: number, zk: string, dataDir: string, pem: string): string {
  const base = 9092 + 3 * (id - 1);
  const lines = [
    `broker.id=${id}`,
    `zookeeper.connect=${zk}`,
    `log.dirs=${dataDir}`,
    'auto.create.topics.enable=true',
    'default.replication.factor=2',
    'num.partitions=2',
    'delete.topic.enable=true',
    'group.initial.rebalance.delay.ms=0',
    'offsets.topic.replication.factor=3',
    'transaction.state.log.replication.factor=3',
    'transaction.state.log.min.isr=2',
  ];
  if (PLAINTEXT_ONLY) lines.push(`listeners=PLAINTEXT://localhost:${base}`);
  else
    lines.push(
      `listeners=PLAINTEXT://localhost:${base},SSL://localhost:${base + 1},SASL_SSL://localhost:${base + 2}`,
      'inter.broker.listener.name=PLAINTEXT',
      'ssl.keystore.type=PEM',
      `ssl.keystore.location=${pem}`,
      'authorizer.class.name=kafka.security.auth.SimpleAclAuthorizer',
      'allow.everyone.if.no.acl.found=true',
    );
  if (OAUTHBEARER && !PLAINTEXT_ONLY)
    lines.push(
      'sasl.enabled.mechanisms=OAUTHBEARER',
      'connections.max.reauth.ms=15000',
      'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";',
    );
  else if (!PLAINTEXT_ONLY)
    lines.push(
      'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
      `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${PLAIN_USERS};`,
      'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="adminadmin";',
      'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="adminadmin";',
    );
  return lines.join('\n') + '\n';
}

function startBroker(configFile: string, log: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, '--config', configFile, '--log-level', 'warn'], { stdio: ['pipe', 'pipe', fs.openSync(log, 'a')] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/^krill ready on /m.test(out)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`broker exited with ${code} before it served: ${out}; see ${log}`)));
  });
}

async function main(): Promise<void> {
  const [kafkajsDir, ...specs] = process.argv.slice(2).filter((a) => a !== '--');
  if (!kafkajsDir || !fs.existsSync(path.join(kafkajsDir, 'testHelpers'))) {
    throw new Error('usage: run.ts <kafkajs checkout with node_modules> [spec ...]');
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-kafkajs-suite-'));
  const zk = await startZooKeeper();
  const brokers: ChildProcess[] = [];
  try {
    const pem = makeCertificate(work);
    for (const id of [1, 2, 3]) {
      const file = path.join(work, `broker-${id}.properties`);
      fs.writeFileSync(file, brokerConfig(id, `${zk.connect}/kafkajs`, path.join(work, `data-${id}`), pem));
      brokers.push(await startBroker(file, path.join(work, `broker-${id}.log`)));
    }
    if (!PLAINTEXT_ONLY && !OAUTHBEARER) {
      // What kafkajs's scripts/createScramCredentials.sh does through kafka-configs.
      const [java, ...jvm] = javaCommand(TOOLS_CLASSPATH, 'org.apache.kafka.tools.ConfigCommand');
      const configs = spawnSync(
        java,
        [
          ...jvm,
          '--bootstrap-server',
          'localhost:9092',
          '--alter',
          '--add-config',
          'SCRAM-SHA-256=[iterations=8192,password=testtestscram=256],SCRAM-SHA-512=[password=testtestscram=512]',
          '--entity-type',
          'users',
          '--entity-name',
          'testscram',
        ],
        { encoding: 'utf8' },
      );
      if (configs.status !== 0) throw new Error(`kafka-configs failed: ${configs.stderr}`);
    }
    const jest = spawnSync(
      path.join(kafkajsDir, 'node_modules', '.bin', 'jest'),
      ['--ci', '--forceExit', '--maxWorkers=2', '--json', `--outputFile=${path.join(work, 'jest.json')}`, ...specs],
      { cwd: kafkajsDir, stdio: 'inherit', env: { ...process.env, KAFKA_VERSION: '2.4', NODE_ENV: 'test', ...(OAUTHBEARER && { OAUTHBEARER_ENABLED: '1' }) } },
    );
    const report = JSON.parse(fs.readFileSync(path.join(work, 'jest.json'), 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      testResults: { name: string; assertionResults: { status: string }[] }[];
    };
    for (const file of report.testResults) {
      const count = (s: string) => file.assertionResults.filter((a) => a.status === s).length;
      console.log(`${path.relative(kafkajsDir, file.name)}: ${count('passed')} passed, ${count('failed')} failed`);
    }
    console.log(
      `kafkajs specs against krill${PLAINTEXT_ONLY ? ' (PLAINTEXT only)' : OAUTHBEARER ? ' (OAUTHBEARER)' : ''}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped (jest exit ${jest.status})`,
    );
  } finally {
    for (const b of brokers) b.kill('SIGTERM');
    await Promise.all(brokers.map((b) => new Promise((r) => (b.exitCode !== null ? r(null) : b.once('exit', r)))));
    await zk.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
