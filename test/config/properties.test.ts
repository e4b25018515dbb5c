import { describe, expect, it } from 'vitest';
import { parseProperties } from '../../src/properties.js';

describe('parseProperties', () => {
  it('reads key=value, key: value and key value lines, skipping comments and blank lines', () => {
    const text = [
      '# a comment',
      '! another comment',
      '',
      'node.id=3',
      'log.dirs : /data/kafka',
      'num.partitions 4',
      '   listeners=PLAINTEXT://:9092   ',
      'empty.value=',
    ].join('\n');
    expect(parseProperties(text)).toEqual({
      values: {
        'node.id': '3',
        'log.dirs': '/data/kafka',
        'num.partitions': '4',
        listeners: 'PLAINTEXT://:9092',
        'empty.value': '',
      },
      malformed: [],
    });
  });

  it('joins a line ending in a backslash to the next, and a later key wins', () => {
    const text = 'listeners=PLAINTEXT://a:1,\\\r\n    CONTROLLER://b:2\r\nnode.id=1\nnode.id=2\n';
    expect(parseProperties(text).values).toEqual({ listeners: 'PLAINTEXT://a:1,CONTROLLER://b:2', 'node.id': '2' });
  });

  it('lists the lines it cannot read, in order, and keeps the rest', () => {
    const { values, malformed } = parseProperties('lonely\nnode.id=1\n=no key\n');
    expect(values).toEqual({ 'node.id': '1' });
    expect(malformed).toEqual(['lonely', '=no key']);
  });
});
