// What the TLS suites share: a krill CLI process with one SSL listener (keys made by test/security/certs.ts),
// started at --log-level debug so that a suite can read the principal each request ran as from the request
// log, and the wait for such a line.
import type { ChildProcess } from 'node:child_process';
import { spawnCli, useTempDirs, type CliBroker } from '../../test/helpers.js';
import type { Pki } from '../../test/security/certs.js';

/** mTLS principals: CN of an OU=Eng certificate, lower-cased; any other name as its whole DN (DEFAULT). */
export const MAPPING_RULES = 'RULE:^CN=([^,]+),OU=Eng,.*$/$1/L,DEFAULT';

/** The broker configs of an SSL listener with `pki`'s broker certificate, trusting `pki`'s CA. */
export function sslListenerConfig(pki: Pki, clientAuth: 'required' | 'requested' | 'none'): Record<string, string> {
  return {
    listeners: 'SSL://127.0.0.1:0',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': pki.brokerPem,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': pki.caCert,
    'ssl.client.auth': clientAuth,
    'ssl.principal.mapping.rules': MAPPING_RULES,
  };
}

export async function startSslCli(config: Record<string, string>, dataDir: () => string): Promise<CliBroker> {
  const args = ['--port', '0', '--data-dir', dataDir(), '--log-level', 'debug'];
  for (const [k, v] of Object.entries(config)) args.push('--set', `${k}=${v}`);
  return spawnCli(args);
}

export { useTempDirs };

/** Resolves with the first log line of the process that `wanted` accepts, reading the log as it comes (nothing waits for time). */
export function logLine<T extends { msg?: string }>(proc: ChildProcess, wanted: (r: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const r = JSON.parse(line) as T;
        if (wanted(r)) {
          proc.stderr!.off('data', onData);
          resolve(r);
          return;
        }
      }
    };
    proc.stderr!.on('data', onData);
  });
}

/** The first request log line from `clientId`: its principal and api. */
export function requestLogged(proc: ChildProcess, clientId: string): Promise<{ principal: string; api: string }> {
  return logLine<{ msg?: string; clientId?: string; principal: string; api: string }>(proc, (r) => r.msg === 'request' && r.clientId === clientId);
}
