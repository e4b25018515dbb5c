// The SSL rows' keys, made by openssl once per run in a temporary directory (never committed): a CA and a
// broker certificate for 127.0.0.1 it signed; krill's SSL listener configs and the clients' TLS settings.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './processes.js';

export interface BenchTls {
  /** krill --set configs: an SSL listener (its port replaced by --port 0) with the broker's PEM keystore. */
  broker: Record<string, string>;
  /** librdkafka settings (kcat -X, rdkafka_client.py): TLS trusting the CA. */
  client: Record<string, string>;
}

let made: BenchTls | null = null;

/** The run's keys, made on first use; the directory goes with the run's other temporary directories. */
export function benchTls(): BenchTls {
  if (made) return made;
  const dir = makeTempDir('krill-bench-tls-');
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=krill-bench-ca']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'broker.key', '-out', 'broker.csr', '-subj', '/CN=127.0.0.1']);
  fs.writeFileSync(path.join(dir, 'broker.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'broker.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'broker.crt',
    '-days',
    '2',
    '-extfile',
    'broker.ext',
  ]);
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  fs.writeFileSync(path.join(dir, 'broker.pem'), read('broker.key') + read('broker.crt'));
  made = {
    broker: {
      listeners: 'SSL://127.0.0.1:0',
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': path.join(dir, 'broker.pem'),
    },
    client: { 'security.protocol': 'ssl', 'ssl.ca.location': path.join(dir, 'ca.crt') },
  };
  return made;
}
