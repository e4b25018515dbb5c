// Test certificates, made by openssl for each test run and never committed: a CA, a broker certificate
// for 127.0.0.1/localhost signed by it, client certificates signed by it, and a second CA nobody trusts.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../helpers.js';

export interface Pki {
  dir: string;
  /** The CA's certificate (PEM file): the truststore of brokers and clients. */
  caCert: string;
  /** The broker's key and certificate chain in one PEM file (ssl.keystore.type=PEM). */
  brokerPem: string;
  brokerKey: string;
  brokerCert: string;
  /** A client certificate and key signed by `ca`, with the subject given. */
  client(name: string, subject: string, options?: { untrusted?: boolean; password?: string }): { key: string; cert: string; pem: string; p12?: string };
  /** The broker's keystore as PKCS12, with `password`. */
  brokerP12(password: string): string;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`], dir);
}

function signed(dir: string, ca: string, name: string, subject: string, extensions: string): void {
  fs.writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
  fs.writeFileSync(
    path.join(dir, `${name}.pem`),
    fs.readFileSync(path.join(dir, `${name}.key`), 'utf8') + fs.readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
  );
}

export function makePki(): Pki {
  const dir = tempDir('krill-pki-');
  makeCa(dir, 'ca');
  makeCa(dir, 'rogue-ca');
  signed(dir, 'ca', 'broker', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: file('ca.crt'),
    brokerPem: file('broker.pem'),
    brokerKey: file('broker.key'),
    brokerCert: file('broker.crt'),
    client(name, subject, options = {}) {
      signed(dir, options.untrusted ? 'rogue-ca' : 'ca', name, subject, 'extendedKeyUsage=clientAuth\n');
      const out: { key: string; cert: string; pem: string; p12?: string } = { key: file(`${name}.key`), cert: file(`${name}.crt`), pem: file(`${name}.pem`) };
      if (options.password !== undefined) {
        openssl(['pkcs12', '-export', '-in', `${name}.crt`, '-inkey', `${name}.key`, '-out', `${name}.p12`, '-passout', `pass:${options.password}`], dir);
        out.p12 = file(`${name}.p12`);
      }
      return out;
    },
    brokerP12(password) {
      openssl(
        ['pkcs12', '-export', '-in', 'broker.crt', '-inkey', 'broker.key', '-certfile', 'ca.crt', '-out', 'broker.p12', '-passout', `pass:${password}`],
        dir,
      );
      return file('broker.p12');
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
