// krill-topics.json lost or broken: the topic list is rebuilt from the partition directories, or the open
// is refused naming the file; and no partition directory holding data is ever removed but by deleteTopic.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirError, LogManager, TOPICS_FILE } from '../../src/storage/log-manager.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';
import { dirSnapshot } from '../helpers.js';

let dataDir: string;
const managers: LogManager[] = [];
let warnings: string[] = [];
const log = {
  info() {},
  warn(_obj: object, msg?: string) {
    warnings.push(msg ?? '');
  },
};

beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => {
  for (const m of managers.splice(0)) m.close();
  rmDir(dataDir);
});

function open(): LogManager {
  warnings = [];
  const m = LogManager.open({ dataDir, defaults: { 'segment.bytes': '1073741824' }, log });
  managers.push(m);
  return m;
}

function close(m: LogManager): void {
  m.close();
  managers.splice(managers.indexOf(m), 1);
}

function append(m: LogManager, topic: string, p: number, records = 1): void {
  const { buf, batches } = toAppend(buildBatch({ records, valueSize: 40 }));
  m.partition(topic, p)!.append(buf, batches);
}

describe('the topic list of a data directory', () => {
  it('a deleted krill-topics.json is rebuilt from the directories: names, partition counts, ids, configs and records kept', () => {
    let m = open();
    const a = m.createTopic('a-b', 3, { 'segment.bytes': '300' });
    const c = m.createTopic('c', 1, {});
    for (let i = 0; i < 10; i++) append(m, 'a-b', i % 3, 2);
    append(m, 'c', 0, 5);
    close(m);
    fs.rmSync(path.join(dataDir, TOPICS_FILE));

    m = open();
    expect(warnings).toEqual([`${TOPICS_FILE} is missing; rebuilt the topic list from the partition directories`]);
    expect(m.topics().map((t) => [t.name, t.partitions, t.topicId.toString('hex'), t.overrides])).toEqual([
      ['a-b', 3, a.topicId.toString('hex'), { 'segment.bytes': '300' }],
      ['c', 1, c.topicId.toString('hex'), {}],
    ]);
    expect([0, 1, 2].map((p) => m.partition('a-b', p)!.logEndOffset)).toEqual([8, 6, 6]);
    expect(m.partition('a-b', 0)!.segmentBaseOffsets().length).toBeGreaterThan(1);
    expect(parseBatches(m.partition('c', 0)!.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual([0]);
    expect(m.partition('c', 0)!.logEndOffset).toBe(5);
    // The rebuilt list is written back.
    const doc = JSON.parse(fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8'));
    expect(doc.topics.map((t: { name: string }) => t.name)).toEqual(['a-b', 'c']);
    close(m);
    m = open();
    expect(warnings).toEqual([]);
    expect(m.getTopic('a-b')!.topicId.equals(a.topicId)).toBe(true);
  });

  it('without a partition 0 copy or partition.metadata, the partitions found and a new id still keep every record', () => {
    let m = open();
    m.createTopic('t', 3, {});
    append(m, 't', 2, 4);
    close(m);
    fs.rmSync(path.join(dataDir, TOPICS_FILE));
    fs.rmSync(path.join(dataDir, 't-0'), { recursive: true });
    fs.rmSync(path.join(dataDir, 't-2', 'partition.metadata'));
    m = open();
    expect(m.getTopic('t')!.partitions).toBe(3);
    expect(m.partition('t', 2)!.logEndOffset).toBe(4);
    expect(m.partition('t', 1)!.logEndOffset).toBe(0);
  });

  it('a topic rebuilt without its krill-topic.json copy (a data dir from before it) is named in a warning: its overrides are lost', () => {
    let m = open();
    m.createTopic('kept', 1, { 'cleanup.policy': 'compact' });
    m.createTopic('old', 1, { 'cleanup.policy': 'compact' });
    close(m);
    fs.rmSync(path.join(dataDir, TOPICS_FILE));
    fs.rmSync(path.join(dataDir, 'old-0', 'krill-topic.json'));
    m = open();
    expect(m.getTopic('kept')!.configs['cleanup.policy']).toBe('compact');
    expect(m.getTopic('old')!.configs['cleanup.policy']).toBeUndefined();
    expect(warnings).toContain(
      'these topics had no krill-topic.json: their configs are back to the broker defaults; set their overrides again (cleanup.policy, retention, compression.type, ...)',
    );
  });

  it('a directory that is no partition (no segment, no partition.metadata) does not become a topic', () => {
    fs.mkdirSync(path.join(dataDir, 'backup-2024'));
    const m = open();
    expect(m.topics()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, TOPICS_FILE))).toBe(false);
  });

  it('a corrupt krill-topics.json refuses the open, naming the file, and nothing is written', () => {
    const m = open();
    m.createTopic('t', 1, {});
    append(m, 't', 0);
    close(m);
    const file = path.join(dataDir, TOPICS_FILE);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, 40));
    const before = dirSnapshot(dataDir);
    expect(() => open()).toThrow(DataDirError);
    expect(() => open()).toThrow(file);
    expect(dirSnapshot(dataDir)).toEqual(before);
  });

  it('a new topic whose name an unlisted directory holds sets that directory aside instead of wiping it', () => {
    let m = open();
    m.createTopic('t', 2, {});
    append(m, 't', 1, 3);
    close(m);
    const oldLog = fs.readFileSync(path.join(dataDir, 't-1', '00000000000000000000.log'));
    // t's directories, but a list that does not have t (as after a DeleteTopics cut short by a crash)
    fs.writeFileSync(path.join(dataDir, TOPICS_FILE), JSON.stringify({ version: 1, topics: [] }));
    m = open();
    expect(m.getTopic('t')).toBeUndefined();
    m.createTopic('t', 2, {});
    expect(m.partition('t', 1)!.logEndOffset).toBe(0);
    const strays = fs
      .readdirSync(dataDir)
      .filter((f) => f.endsWith('-stray'))
      .sort();
    expect(strays.map((f) => f.replace(/\.[0-9a-f]+-stray$/, ''))).toEqual(['t-0', 't-1']);
    expect(fs.readFileSync(path.join(dataDir, strays[1], '00000000000000000000.log'))).toEqual(oldLog);
  });
});
