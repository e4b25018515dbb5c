// KafkaZk against a real Apache ZooKeeper (skipped where it is not installed): Kafka's layout and JSON,
// broker registration, controller election and fencing, topics, configs, deletion, producer id blocks.
// Each test works under its own chroot, as separate Kafka clusters sharing one ZooKeeper do.
import { describe, expect, it } from 'vitest';
import { ControllerMovedError, KafkaZk, MalformedZNodeError } from '../../src/cluster/zk/kafka-zk.js';
import { ZkError } from '../../src/cluster/zk/zk-client.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { useZooKeeper, waitFor } from './zk-helpers.js';

const TOPIC_ID = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');

describe.skipIf(!zookeeperInstalled())('KafkaZk', () => {
  const zk = useZooKeeper();

  async function kafkaZk(chroot: string): Promise<KafkaZk> {
    const kz = new KafkaZk(await zk.connect(chroot));
    await kz.ensurePersistentPaths();
    return kz;
  }

  async function rawJson(kz: KafkaZk, path: string): Promise<{ text: string; parsed: Record<string, unknown> }> {
    const text = (await kz.zk.getData(path))!.data!.toString('utf8');
    return { text, parsed: JSON.parse(text) as Record<string, unknown> };
  }

  it("creates Kafka's persistent paths and keeps the first cluster id", async () => {
    const kz = await kafkaZk('/paths');
    for (const path of [
      '/brokers/ids',
      '/brokers/topics',
      '/brokers/seqid',
      '/config/topics',
      '/config/changes',
      '/config/brokers',
      '/admin/delete_topics',
      '/isr_change_notification',
    ]) {
      expect(await kz.zk.getData(path), path).not.toBeNull();
    }
    expect(await kz.getOrCreateClusterId('first-id')).toBe('first-id');
    expect(await kz.getOrCreateClusterId('second-id')).toBe('first-id');
    expect((await rawJson(kz, '/cluster/id')).text).toBe('{"version":"1","id":"first-id"}');
  });

  it("registers a broker with Kafka's JSON, refuses its id twice, and forgets it when its session ends", async () => {
    const a = await kafkaZk('/brokers');
    const b = await kafkaZk('/brokers');
    const epoch = await a.registerBroker({ id: 2, host: 'h2.example', port: 9093, rack: null });
    const { text } = await rawJson(a, '/brokers/ids/2');
    expect(text).toMatch(
      /^\{"listener_security_protocol_map":\{"PLAINTEXT":"PLAINTEXT"\},"endpoints":\["PLAINTEXT:\/\/h2\.example:9093"\],"jmx_port":-1,"features":\{\},"host":"h2\.example","timestamp":"\d+","port":9093,"version":5\}$/,
    );
    const duplicate = await b.registerBroker({ id: 2, host: 'other', port: 1, rack: null }).catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(ZkError);
    expect(duplicate).toMatchObject({ code: 'NODE_EXISTS' });
    expect((duplicate as Error).message).toContain('broker id 2 is already registered');
    // The same session registering again (a retry after a lost answer) is no conflict.
    expect(await a.registerBroker({ id: 2, host: 'h2.example', port: 9093, rack: null })).toBe(epoch);

    const epochB = await b.registerBroker({ id: 1, host: 'h1', port: 9092, rack: 'r1' });
    expect(epochB).toBeGreaterThan(epoch);
    let changed = 0;
    const plaintext = (host: string, port: number) => [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host, port }];
    expect(await a.getBrokers(() => changed++)).toEqual([
      { id: 1, host: 'h1', port: 9092, rack: 'r1', epoch: epochB, endpoints: plaintext('h1', 9092) },
      { id: 2, host: 'h2.example', port: 9093, rack: null, epoch, endpoints: plaintext('h2.example', 9093) },
    ]);
    await b.zk.close();
    await waitFor(() => changed === 1, 'the broker watch to fire');
    expect((await a.getBrokers()).map((x) => x.id)).toEqual([2]);
  });

  it('registers every listener as Kafka does, and reads each broker at its inter-broker endpoint', async () => {
    const a = await kafkaZk('/listeners');
    const endpoints = [
      { listener: 'INTERNAL', securityProtocol: 'SSL', host: 'b3.internal', port: 9094 },
      { listener: 'EXTERNAL', securityProtocol: 'PLAINTEXT', host: 'b3.example', port: 19092 },
    ] as const;
    await a.registerBroker({ id: 3, host: 'b3.internal', port: 9094, rack: null, endpoints });
    // host/port are the PLAINTEXT endpoint's, whatever its listener's name, as Kafka writes them.
    expect((await rawJson(a, '/brokers/ids/3')).text).toMatch(
      /^\{"listener_security_protocol_map":\{"INTERNAL":"SSL","EXTERNAL":"PLAINTEXT"\},"endpoints":\["INTERNAL:\/\/b3\.internal:9094","EXTERNAL:\/\/b3\.example:19092"\],"jmx_port":-1,"features":\{\},"host":"b3\.example","timestamp":"\d+","port":19092,"version":5\}$/,
    );
    const internal = new KafkaZk(await zk.connect('/listeners'), undefined, 'INTERNAL');
    expect(await internal.getBrokers()).toEqual([{ id: 3, host: 'b3.internal', port: 9094, rack: null, epoch: expect.any(Number), endpoints }]);
    await internal.zk.close();
  });

  it('elects exactly one controller in a race, and bumps the epoch for each new controller', async () => {
    const contenders = await Promise.all([1, 2, 3].map(() => kafkaZk('/election')));
    const results = await Promise.all(contenders.map((kz, i) => kz.tryCreateController(i + 1)));
    const winners = results.flatMap((r, i) => (r ? [{ r, i }] : []));
    expect(winners).toHaveLength(1);
    const [{ r: first, i: winner }] = winners;
    expect(first.epoch).toBe(1);
    const observer = contenders[(winner + 1) % 3];
    let controllerGone = 0;
    expect(await observer.getControllerId(() => controllerGone++)).toBe(winner + 1);
    expect((await rawJson(observer, '/controller')).text).toMatch(new RegExp(`^\\{"version":1,"brokerid":${winner + 1},"timestamp":"\\d+"\\}$`));
    expect((await rawJson(observer, '/controller_epoch')).text).toBe('1');

    await contenders[winner].zk.close();
    await waitFor(() => controllerGone === 1, 'the controller watch to fire');
    expect(await observer.getControllerId()).toBeNull();
    const second = await observer.tryCreateController(9);
    expect(second).toEqual({ epoch: 2, epochZkVersion: first.epochZkVersion + 1 });
    expect(await observer.getControllerEpoch()).toEqual({ epoch: 2, zkVersion: second!.epochZkVersion });
    expect(await contenders[(winner + 2) % 3].tryCreateController(3)).toBeNull();
  });

  it('fences partition state writes by the controller epoch', async () => {
    const old = await kafkaZk('/fencing');
    const next = await kafkaZk('/fencing');
    const elected = (await old.tryCreateController(1))!;
    const states = new Map([
      [0, { leader: 1, leaderEpoch: 0, isr: [1, 2], controllerEpoch: elected.epoch }],
      [1, { leader: 2, leaderEpoch: 0, isr: [2, 1], controllerEpoch: elected.epoch }],
    ]);
    await old.createTopic(
      't',
      TOPIC_ID,
      new Map([
        [0, [1, 2]],
        [1, [2, 1]],
      ]),
      {},
    );
    await old.createPartitionStates('t', states, elected.epochZkVersion);
    expect((await rawJson(old, '/brokers/topics/t/partitions/0/state')).text).toBe(
      '{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}',
    );
    const read = await old.getPartitionStates('t');
    expect(read.get(1)).toEqual({ leader: 2, leaderEpoch: 0, isr: [2, 1], controllerEpoch: 1, zkVersion: 0 });
    await expect(old.createPartitionStates('t', new Map([[0, states.get(0)!]]), elected.epochZkVersion)).rejects.toMatchObject({
      code: 'NODE_EXISTS',
    });

    const moved = { leader: 2, leaderEpoch: 1, isr: [2], controllerEpoch: elected.epoch };
    expect(await old.updatePartitionState('t', 0, moved, 0, elected.epochZkVersion)).toBe(1);
    await expect(old.updatePartitionState('t', 0, moved, 0, elected.epochZkVersion)).rejects.toMatchObject({ code: 'BAD_VERSION' });

    // The old controller's session ends (it would be expired by ZooKeeper); another broker takes over.
    const { zk: oldSession } = old;
    const stale = new KafkaZk(await zk.connect('/fencing'));
    await oldSession.close();
    const takeover = (await next.tryCreateController(2))!;
    expect(takeover.epoch).toBe(2);
    await expect(stale.updatePartitionState('t', 0, moved, 1, elected.epochZkVersion)).rejects.toBeInstanceOf(ControllerMovedError);
    await expect(stale.createPartitionStates('u', states, elected.epochZkVersion)).rejects.toBeInstanceOf(ControllerMovedError);
    await expect(stale.deleteTopicZNodes('t', elected.epochZkVersion)).rejects.toBeInstanceOf(ControllerMovedError);
    expect((await next.getPartitionStates('t')).get(0)?.zkVersion).toBe(1);
    expect(await next.updatePartitionState('t', 0, { ...moved, controllerEpoch: 2 }, 1, takeover.epochZkVersion)).toBe(2);
  });

  it("creates a topic with Kafka's JSON, changes its partitions and configs, and deletes it", async () => {
    const kz = await kafkaZk('/topics');
    const assignment = new Map([
      [1, [2, 3]],
      [0, [1, 2]],
    ]);
    await kz.createTopic('orders', TOPIC_ID, assignment, { 'cleanup.policy': 'compact', 'retention.ms': '1000' });
    expect((await rawJson(kz, '/brokers/topics/orders')).text).toBe(
      `{"partitions":{"0":[1,2],"1":[2,3]},"topic_id":"${TOPIC_ID.toString('base64url')}","adding_replicas":{},"removing_replicas":{},"version":3}`,
    );
    expect(TOPIC_ID.toString('base64url')).toHaveLength(22);
    expect((await rawJson(kz, '/config/topics/orders')).text).toBe('{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"1000"}}');
    await expect(kz.createTopic('orders', TOPIC_ID, assignment, {})).rejects.toMatchObject({ code: 'NODE_EXISTS' });

    let topicsChanged = 0;
    expect(await kz.getTopics(() => topicsChanged++)).toEqual(['orders']);
    const read = (await kz.getTopicAssignment('orders'))!;
    expect(read.topicId).toEqual(TOPIC_ID);
    expect([...read.partitions].sort()).toEqual([
      [0, [1, 2]],
      [1, [2, 3]],
    ]);
    await kz.setTopicAssignment('orders', TOPIC_ID, new Map([...assignment, [2, [3, 1]]]), read.version);
    expect((await kz.getTopicAssignment('orders'))!.partitions.get(2)).toEqual([3, 1]);
    await expect(kz.setTopicAssignment('orders', TOPIC_ID, assignment, read.version)).rejects.toMatchObject({ code: 'BAD_VERSION' });

    let changesSeen = 0;
    expect(await kz.getConfigChanges(() => changesSeen++)).toEqual([]);
    await kz.setTopicConfig('orders', { 'retention.ms': '2000' });
    await waitFor(() => changesSeen === 1, 'the config change watch to fire');
    expect(await kz.getTopicConfig('orders')).toEqual({ 'retention.ms': '2000' });
    expect(await kz.getTopicConfig('absent')).toEqual({});
    const changes = await kz.getConfigChanges();
    expect(changes).toEqual([expect.stringMatching(/^config_change_\d{10}$/)]);
    expect((await rawJson(kz, `/config/changes/${changes[0]}`)).text).toBe('{"version":2,"entity_path":"topics/orders"}');
    const before = Date.now() - 60_000;
    const change = await kz.readConfigChange(changes[0]);
    expect(change).toMatchObject({ entityType: 'topics', entityName: 'orders' });
    // ZooKeeper's creation time, which the 15-minute purge reads.
    expect(change!.createdMs).toBeGreaterThan(before);
    expect(await kz.readConfigChange('config_change_9999999999')).toBeNull();
    await kz.deleteConfigChange(changes[0]);
    await kz.deleteConfigChange(changes[0]); // gone already: nothing to do
    expect(await kz.getConfigChanges()).toEqual([]);

    let deletionMarked = 0;
    expect(await kz.getTopicDeletions(() => deletionMarked++)).toEqual([]);
    await kz.markTopicForDeletion('orders');
    await kz.markTopicForDeletion('orders');
    await waitFor(() => deletionMarked === 1, 'the deletion watch to fire');
    expect(await kz.getTopicDeletions()).toEqual(['orders']);
    const controller = (await kz.tryCreateController(1))!;
    await kz.createPartitionStates('orders', new Map([[0, { leader: 1, leaderEpoch: 0, isr: [1], controllerEpoch: 1 }]]), controller.epochZkVersion);
    await kz.deleteTopicZNodes('orders', controller.epochZkVersion);
    expect(await kz.getTopicAssignment('orders')).toBeNull();
    expect(await kz.zk.getData('/config/topics/orders')).toBeNull();
    expect(await kz.getTopicDeletions()).toEqual([]);
    expect(topicsChanged).toBe(1);
  });

  it('hands out producer id blocks that never overlap, across brokers', async () => {
    const brokers = await Promise.all([1, 2].map(() => kafkaZk('/pids')));
    const blocks = await Promise.all(Array.from({ length: 20 }, (_, i) => brokers[i % 2].allocateProducerIdBlock(i % 2, 1000)));
    const sorted = blocks.sort((x, y) => x.start - y.start);
    sorted.forEach((b, i) => expect(b).toEqual({ start: i * 1000, end: i * 1000 + 999 }));
    const { parsed, text } = await rawJson(brokers[0], '/latest_producer_id_block');
    expect(Object.keys(parsed)).toEqual(['version', 'broker', 'block_start', 'block_end']);
    expect(text).toMatch(/^\{"version":1,"broker":[01],"block_start":"19000","block_end":"19999"\}$/);
  });

  it('reports a malformed znode with its path and skips it in lists', async () => {
    const kz = await kafkaZk('/malformed');
    await kz.registerBroker({ id: 1, host: 'h', port: 1, rack: null });
    await kz.zk.create('/brokers/ids/7', Buffer.from('{not json'), 'ephemeral');
    await kz.zk.create('/brokers/ids/8', Buffer.from('{"version":5,"endpoints":[42]}'), 'ephemeral');
    expect((await kz.getBrokers()).map((b) => b.id)).toEqual([1]);
    await kz.zk.create('/brokers/topics/bad', Buffer.from('{"version":3,"partitions":{"0":"x"}}'), 'persistent');
    const err = await kz.getTopicAssignment('bad').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedZNodeError);
    expect((err as Error).message).toContain('/brokers/topics/bad');
    await kz.zk.create('/controller', Buffer.from('[]'), 'ephemeral');
    await expect(kz.getControllerId()).rejects.toThrow('malformed znode /controller');
  });
});
