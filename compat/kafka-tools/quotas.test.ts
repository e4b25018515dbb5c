// Apache Kafka 4.4.0's kafka-configs (ConfigCommand) setting, describing and deleting client quotas on one
// real krill CLI process: --entity-type clients, users with clients, and <default> entities, through
// AlterClientQuotas and DescribeClientQuotas; the quotas read back after the broker restarts on the same
// data dir. (Describing users alone also asks for SCRAM credentials, which the SASL part of krill answers.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';
import { runTool, tool, toolsMissing } from './tools.js';

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
const configs = (...args: string[]) => tool('kafka-configs', ['--bootstrap-server', broker.bootstrap, ...args]);

describeWithToolchain('Kafka 4.4.0 kafka-configs: client quotas', toolsMissing, { timeout: 90_000 }, () => {
  beforeAll(async () => {
    dataDir = pool.dir('krill-tools-quotas-');
    broker = await pool.start(['--data-dir', dataDir]);
  });
  afterAll(() => pool.cleanup());

  it('--alter --add-config / --delete-config and --describe, for client ids, users with client ids and defaults', async () => {
    const set = await configs('--alter', '--entity-type', 'clients', '--entity-name', 'app', '--add-config', 'producer_byte_rate=1024,consumer_byte_rate=2048');
    expect(set.stdout.trim()).toBe('Completed updating config for client app.');
    await configs('--alter', '--entity-type', 'clients', '--entity-default', '--add-config', 'request_percentage=25.5');
    await configs(
      '--alter',
      '--entity-type',
      'users',
      '--entity-name',
      'alice',
      '--entity-type',
      'clients',
      '--entity-name',
      'app',
      '--add-config',
      'producer_byte_rate=4096',
    );
    await configs(
      '--alter',
      '--entity-type',
      'users',
      '--entity-default',
      '--entity-type',
      'clients',
      '--entity-default',
      '--add-config',
      'consumer_byte_rate=8192',
    );

    expect((await configs('--describe', '--entity-type', 'clients', '--entity-name', 'app')).stdout.trim()).toBe(
      "Quota configs for client-id 'app' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0",
    );
    expect((await configs('--describe', '--entity-type', 'clients')).stdout.trim().split('\n').sort()).toEqual([
      "Quota configs for client-id 'app' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0",
      'Quota configs for the default client-id are request_percentage=25.5',
    ]);
    expect((await configs('--describe', '--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients')).stdout.trim()).toBe(
      "Quota configs for user-principal 'alice', client-id 'app' are producer_byte_rate=4096.0",
    );
    expect((await configs('--describe', '--entity-type', 'users', '--entity-default', '--entity-type', 'clients', '--entity-default')).stdout.trim()).toBe(
      'Quota configs for the default user-principal, the default client-id are consumer_byte_rate=8192.0',
    );

    await configs('--alter', '--entity-type', 'clients', '--entity-name', 'app', '--delete-config', 'consumer_byte_rate');
    expect((await configs('--describe', '--entity-type', 'clients', '--entity-name', 'app')).stdout.trim()).toBe(
      "Quota configs for client-id 'app' are producer_byte_rate=1024.0",
    );
    // A byte rate must be whole: the broker's INVALID_REQUEST, with its message, is what the tool reports
    const refused = await runTool('kafka-configs', [
      '--bootstrap-server',
      broker.bootstrap,
      '--alter',
      '--entity-type',
      'clients',
      '--entity-name',
      'app',
      '--add-config',
      'producer_byte_rate=1.5',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('Configuration producer_byte_rate must be a Long value');
  });

  it('the quotas set are there after a restart on the same data dir', async () => {
    await pool.stop(broker);
    broker = await pool.start(['--data-dir', dataDir]);
    expect((await configs('--describe', '--entity-type', 'clients')).stdout.trim().split('\n').sort()).toEqual([
      "Quota configs for client-id 'app' are producer_byte_rate=1024.0",
      'Quota configs for the default client-id are request_percentage=25.5',
    ]);
  });
});
