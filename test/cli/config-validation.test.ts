// Configuration at start: listeners checked before anything listens, Kafka's own server.properties accepted
// with one warning naming what krill ignores, every problem reported in one message, values of any JSON
// scalar type in the embedded API; and the CLI's --port range, --version and request log at debug.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, spawnCli, withBroker, useTempDirs } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, metadataBody, uniqueTopic } from '../server/kafka.js';
import { BrokerConfig, ConfigError } from '../../src/config.js';

const dir = useTempDirs('krill-config-');

/** The JSON log records among `stderr`'s lines. */
function records(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function problemsOf(overrides: Record<string, string | number | boolean>): readonly string[] {
  try {
    new BrokerConfig(overrides);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('listeners are checked at start', () => {
  it.each([
    ['listeners', 'garbage'],
    ['advertised.listeners', 'garbage'],
    ['listeners', 'PLAINTEXT://127.0.0.1:99999'],
    ['advertised.listeners', 'PLAINTEXT://0.0.0.0:9092'],
  ])('%s=%s exits 2 with a message naming the config, before listening', async (name, value) => {
    const d = dir();
    const r = await runCli(['--port', '0', '--data-dir', d, '--set', `${name}=${value}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${name}:`);
    expect(r.stdout).not.toContain('krill ready');
    expect(fs.readdirSync(d)).toEqual([]);
  });

  it('--host 0.0.0.0 needs advertised.listeners, as Kafka refuses to advertise a wildcard; with it, it starts', async () => {
    const d = dir();
    const r = await runCli(['--host', '0.0.0.0', '--port', '0', '--data-dir', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "advertised.listeners: not set for PLAINTEXT, and the listener's 0.0.0.0 (every interface) is not an address clients can connect to",
    );
    expect(fs.readdirSync(d)).toEqual([]);
    // what the Docker image runs
    const broker = await spawnCli(['--host', '0.0.0.0', '--port', '0', '--data-dir', d, '--set', 'advertised.listeners=PLAINTEXT://localhost:9092']);
    broker.proc.kill('SIGTERM');
    expect(await broker.exited).toBe(0);
  });

  it('refuses what krill cannot honour, naming why', () => {
    expect(problemsOf({ listeners: 'PLAINTEXT://127.0.0.1:9092,SASL_SSL://127.0.0.1:9094' })).toEqual([
      'sasl.enabled.mechanisms: GSSAPI on listener SASL_SSL is not supported by krill (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER are)',
    ]);
    expect(
      problemsOf({
        listeners: 'PLAINTEXT://127.0.0.1:9092,EXTERNAL://127.0.0.1:9092',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT',
      }),
    ).toEqual(['listeners: PLAINTEXT and EXTERNAL both use port 9092; each listener needs its own']);
    expect(problemsOf({ 'inter.broker.listener.name': 'PLAINTEXT', 'security.inter.broker.protocol': 'PLAINTEXT' })).toEqual([
      'inter.broker.listener.name: only one of inter.broker.listener.name and security.inter.broker.protocol may be set',
    ]);
    expect(problemsOf({ 'zookeeper.connect': '127.0.0.1:2181', 'inter.broker.listener.name': 'INTERNAL' })).toEqual([
      'inter.broker.listener.name: the inter-broker listener INTERNAL must be one of the client listeners (PLAINTEXT)',
    ]);
    const scramBetweenBrokers = {
      'zookeeper.connect': '127.0.0.1:2181',
      listeners: 'SASL_PLAINTEXT://127.0.0.1:9092',
      'security.inter.broker.protocol': 'SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
      'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    };
    expect(problemsOf(scramBetweenBrokers)).toEqual([
      "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config: the inter-broker listener's ScramLoginModule needs username and password, which brokers log in with",
    ]);
    const scramJaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="s";';
    expect(problemsOf({ ...scramBetweenBrokers, 'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': scramJaas })).toEqual([]);
    expect(problemsOf({ listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093' })).toEqual([
      'listeners: listener CONTROLLER has no security protocol in listener.security.protocol.map',
    ]);
    expect(problemsOf({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'OTHER://h:1' })).toEqual([
      'advertised.listeners: OTHER is not a listener named in listeners',
    ]);
    expect(problemsOf({ 'process.roles': 'controller' })[0]).toMatch(/^process\.roles: .*no broker role/);
    expect(problemsOf({ 'node.id': 1, 'controller.quorum.voters': '1@a:9093,2@b:9093,3@c:9093' })[0]).toMatch(/^controller\.quorum\.voters: names node 2, 3/);
    expect(problemsOf({ 'max.connections.per.ip': 0 })[0]).toMatch(/^max\.connections\.per\.ip: /);
    expect(problemsOf({ 'max.connections.per.ip.overrides': 'somehost:3' })[0]).toMatch(/^max\.connections\.per\.ip\.overrides: 'somehost'/);
  });

  it('serves every client listener, each advertised as advertised.listeners says or as itself; the inter-broker one as Kafka picks it', () => {
    const config = new BrokerConfig({
      listeners: 'PLAINTEXT://127.0.0.1:9092,EXTERNAL://0.0.0.0:9093,INTERNAL://127.0.0.1:9094',
      'advertised.listeners': 'EXTERNAL://kafka.example:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT,INTERNAL:PLAINTEXT',
      'inter.broker.listener.name': 'internal',
    });
    expect(config.clientListeners.map((l) => [l.name, l.securityProtocol, l.port, l.advertised])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT', 9092, { host: '127.0.0.1', port: 9092 }],
      ['EXTERNAL', 'PLAINTEXT', 9093, { host: 'kafka.example', port: 9093 }],
      ['INTERNAL', 'PLAINTEXT', 9094, { host: '127.0.0.1', port: 9094 }],
    ]);
    expect(config.interBrokerListener).toBe('INTERNAL');
    expect(new BrokerConfig({ 'security.inter.broker.protocol': 'PLAINTEXT' }).interBrokerListener).toBe('PLAINTEXT');
  });

  it('serves the client listener and advertises its entry of advertised.listeners; the controller listener is left alone', () => {
    const config = new BrokerConfig({
      listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'advertised.listeners': 'PLAINTEXT://kafka.example:19092,CONTROLLER://127.0.0.1:9093',
      'controller.listener.names': 'CONTROLLER',
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    });
    expect(config.listener).toMatchObject({ host: '127.0.0.1', port: 9092 });
    expect(config.advertisedListener).toMatchObject({ host: 'kafka.example', port: 19092 });
    expect(config.ignoredListeners).toEqual(['CONTROLLER://127.0.0.1:9093']);
    config.setListenerAddress(undefined, 0);
    expect(config.listener).toMatchObject({ host: '127.0.0.1', port: 0 });
    expect(config.ignoredListeners).toEqual(['CONTROLLER://127.0.0.1:9093']);
  });
});

describe('BrokerConfig.set', () => {
  it('changes nothing when the new value does not fit with the others', () => {
    const config = new BrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:9092' });
    expect(() => config.set('advertised.listeners', 'garbage')).toThrow(/advertised\.listeners: 'garbage'/);
    expect(config.string('advertised.listeners')).toBeNull();
    expect(() => config.set('broker.id', 7)).not.toThrow();
    expect(() => config.set('controller.quorum.voters', '7@a:9093,8@b:9093')).toThrow(/names node 8/);
    expect(config.string('controller.quorum.voters')).toBeNull();
    expect(config.ignored).toEqual([]);
    expect(config.nodeId).toBe(7);
  });
});

describe("Kafka's server.properties", () => {
  // Kafka 4.0's config/server.properties (KRaft, combined broker and controller), as shipped but for the
  // data dir and the client port, plus the names older (ZooKeeper-era) files carry.
  const STOCK = (dataDir: string) => `
############################# Server Basics #############################
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:9093
controller.quorum.voters=1@localhost:9093
broker.id=1
############################# Socket Server Settings #############################
listeners=PLAINTEXT://:0,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
############################# Log Basics #############################
log.dirs=${dataDir}
num.partitions=2
num.recovery.threads.per.data.dir=1
############################# Internal Topic Settings  #############################
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
############################# Log Retention Policy #############################
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
############################# ZooKeeper (older files) #############################
zookeeper.connect=localhost:2181
zookeeper.connection.timeout.ms=18000
group.initial.rebalance.delay.ms=0
`;
  const IGNORED = [
    'process.roles',
    'controller.quorum.bootstrap.servers',
    'controller.quorum.voters',
    'num.network.threads',
    'num.io.threads',
    'socket.send.buffer.bytes',
    'socket.receive.buffer.bytes',
    'num.recovery.threads.per.data.dir',
    'share.coordinator.state.topic.replication.factor',
    'share.coordinator.state.topic.min.isr',
    // Leftovers of a ZooKeeper setup in a file that declares KRaft (process.roles) mean nothing, as in Kafka.
    'transaction.state.log.min.isr',
    'zookeeper.connect',
    'zookeeper.connection.timeout.ms',
  ];

  it('starts as it is, with one warning listing every ignored name, and honours the rest', async () => {
    const d = dir();
    const file = path.join(d, 'server.properties');
    fs.writeFileSync(file, STOCK(path.join(d, 'data')));
    const b = await spawnCli(['--config', file]);
    try {
      expect(path.resolve(b.dataDir)).toBe(path.join(d, 'data'));
      const c = await TestClient.connect(b.port);
      const md = await c.request(API.Metadata, 12, metadataBody([uniqueTopic('stock')]));
      c.close();
      expect(md.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: b.port, rack: null }]);
      expect(md.topics[0].partitions).toHaveLength(2); // num.partitions=2
    } finally {
      b.proc.kill('SIGTERM');
      expect(await b.exited).toBe(0);
    }
    const warnings = records(b.stderr()).filter((r) => r.level === 40);
    expect(warnings).toHaveLength(1);
    expect([...(warnings[0].ignoredConfigs as string[])].sort()).toEqual([...IGNORED].sort());
    expect(warnings[0].ignoredListeners).toEqual(['CONTROLLER://127.0.0.1:9093']);
    for (const name of IGNORED) expect(warnings[0].msg).toContain(name);
  });

  it('reports every malformed value and unknown name in one message, exit 2', async () => {
    const d = dir();
    const file = path.join(d, 'server.properties');
    fs.writeFileSync(
      file,
      [
        'num.io.threads=eight',
        'log.retention.hours=a week',
        'num.partitions=0',
        'advertised.listeners=garbage',
        'auto.create.topic.enable=true',
        'process.roles=broker,observer',
      ].join('\n'),
    );
    const r = await runCli(['--port', '0', '--data-dir', d, '--config', file, '--set', 'message.max.bytes=big']);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('krill ready');
    expect(r.stderr).toContain('7 config problems');
    for (const name of [
      'num.io.threads',
      'log.retention.hours',
      'num.partitions',
      'advertised.listeners',
      "'auto.create.topic.enable'",
      'process.roles',
      'message.max.bytes',
    ]) {
      expect(r.stderr).toContain(name);
    }
  });
});

describe('the embedded config', () => {
  it('takes numbers and booleans, and honours them', async () => {
    const b = await withBroker({ config: { 'num.partitions': 3, 'auto.create.topics.enable': false, 'delete.topic.enable': true } });
    const c = await TestClient.connect(b.port);
    try {
      const name = uniqueTopic('numbers');
      const md = await c.request(API.Metadata, 12, metadataBody([name], true));
      expect(md.topics[0].errorCode).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION: not auto-created
      const created = await c.request(API.CreateTopics, 7, {
        topics: [{ name, numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      });
      expect(created.topics[0]).toMatchObject({ errorCode: 0, numPartitions: 3 });
    } finally {
      c.close();
      await b.close();
    }
  });

  it('reads booleans without regard to case, as Kafka does', () => {
    expect(new BrokerConfig({ 'auto.create.topics.enable': 'FALSE' }).bool('auto.create.topics.enable')).toBe(false);
    expect(new BrokerConfig({ 'auto.create.topics.enable': 'True' }).bool('auto.create.topics.enable')).toBe(true);
    expect(problemsOf({ 'auto.create.topics.enable': 'yes' })).toEqual(["auto.create.topics.enable: 'yes' is not true or false"]);
  });

  it('rejects a value that is no string, number or boolean, naming the config', () => {
    expect(problemsOf({ 'num.partitions': { n: 3 } as unknown as string })).toEqual(['num.partitions: object is not a value (a string, number or boolean)']);
    expect(problemsOf({ 'num.partitions': 2.5 })).toEqual(["num.partitions: '2.5' is not an integer"]);
  });
});

describe('the command line', () => {
  it('--port 70000 exits 2 naming --port', async () => {
    const r = await runCli(['--port', '70000', '--data-dir', dir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--port');
    expect(r.stderr).toContain('70000');
    expect(r.stderr).not.toContain('listeners');
  });

  it('--host with what is no host name exits 2 naming --host', async () => {
    const r = await runCli(['--host', 'bad host', '--port', '0', '--data-dir', dir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--host');
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it('--log-level debug logs each connection and each request with api, version, client id, correlation id and duration', async () => {
    const run = async (level: string) => {
      const b = await spawnCli(['--port', '0', '--data-dir', dir(), '--log-level', level]);
      const c = await TestClient.connect(b.port);
      await c.request(API.ApiVersions, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
      await c.request(API.Metadata, 12, metadataBody(null));
      c.close();
      await new Promise((r) => setTimeout(r, 100)); // let the close be seen before stopping
      b.proc.kill('SIGTERM');
      expect(await b.exited).toBe(0);
      return records(b.stderr());
    };
    const debug = await run('debug');
    const requests = debug.filter((r) => r.msg === 'request');
    expect(requests.map((r) => [r.api, r.apiVersion, r.clientId, r.correlationId])).toEqual([
      ['ApiVersions', 3, 'krill-test', 1],
      ['Metadata', 12, 'krill-test', 2],
    ]);
    for (const r of requests) {
      expect(r.level).toBe(20);
      expect(typeof r.durationMs).toBe('number');
      expect(r.client).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    expect(debug.filter((r) => r.msg === 'connection opened')).toHaveLength(1);
    expect(debug.filter((r) => r.msg === 'connection closed')).toHaveLength(1);
    const info = await run('info');
    expect(info.filter((r) => r.msg === 'request' || r.msg === 'connection opened')).toEqual([]);
  });
});
