// The TLS settings of a listener (server side) or of a broker connecting to another (client side), built
// from Kafka's ssl.* configs: the keystore (PEM file with key and chain, inline PEM, or PKCS12), the
// truststore (PEM file or inline PEM), ssl.client.auth and the TLS versions. Everything is read and checked
// at start (tls.createSecureContext), so that a bad path, a wrong password or a key that does not match its
// certificate stops the start naming the listener and the config, not the first client's handshake.
import fs from 'node:fs';
import tls from 'node:tls';
import { ConfigError } from '../config-value.js';
import { SslPrincipalMapper } from './ssl-principal.js';
import { SSL_CONFIGS } from './ssl-configs.js';
import { parseProperties } from '../properties.js';

/** An SSL config's value as it applies to the listener (its listener.name.<l>. form first). */
export type SslGetter = (name: string) => string | null;

export type ClientAuth = 'required' | 'requested' | 'none';

export interface ServerTls {
  options: tls.TlsOptions;
  clientAuth: ClientAuth;
  /** The files read, for a reload when they change. */
  files: string[];
}

const TLS_VERSIONS: Record<string, tls.SecureVersion> = { 'TLSv1.2': 'TLSv1.2', 'TLSv1.3': 'TLSv1.3' };

/** A file's bytes; its problem, naming the config, otherwise. */
function readConfigured(config: string, file: string, problems: string[]): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    problems.push(`${config}: cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return null;
  }
}

/** The key and certificate chain: what this end presents. */
function keystore(get: SslGetter, problems: string[], files: string[]): tls.SecureContextOptions | null {
  const type = get('ssl.keystore.type');
  const location = get('ssl.keystore.location');
  const chain = get('ssl.keystore.certificate.chain');
  const key = get('ssl.keystore.key');
  if (location !== null && (chain !== null || key !== null)) {
    problems.push('ssl.keystore.location: set together with ssl.keystore.certificate.chain/ssl.keystore.key; give one or the other');
    return null;
  }
  if (location === null && chain === null && key === null) return null;
  if (type === 'JKS') {
    problems.push(
      'ssl.keystore.type: JKS is a Java keystore krill cannot read: set ssl.keystore.type=PEM (or PKCS12) and convert it (keytool -importkeystore -deststoretype PKCS12)',
    );
    return null;
  }
  if (location === null) {
    if (type !== 'PEM') problems.push(`ssl.keystore.certificate.chain: an inline keystore is PEM, but ssl.keystore.type is ${type}`);
    else if (chain === null || key === null)
      problems.push(
        `${chain === null ? 'ssl.keystore.certificate.chain' : 'ssl.keystore.key'}: not set, but ${chain === null ? 'ssl.keystore.key' : 'ssl.keystore.certificate.chain'} is`,
      );
    else return { cert: chain, key, passphrase: get('ssl.key.password') ?? undefined };
    return null;
  }
  const bytes = readConfigured('ssl.keystore.location', location, problems);
  if (!bytes) return null;
  files.push(location);
  if (type === 'PKCS12') return { pfx: bytes, passphrase: get('ssl.keystore.password') ?? undefined };
  // A PEM keystore file holds the private key and the certificate chain; Node takes both from the one text.
  return { cert: bytes, key: bytes, passphrase: get('ssl.key.password') ?? undefined };
}

/** The CA certificates this end trusts; undefined: Node's built-in roots, as Kafka falls back on the JVM's. */
function truststore(get: SslGetter, problems: string[], files: string[]): string | Buffer | undefined {
  const type = get('ssl.truststore.type');
  const location = get('ssl.truststore.location');
  const inline = get('ssl.truststore.certificates');
  if (location === null && inline === null) return undefined;
  if (location !== null && inline !== null) {
    problems.push('ssl.truststore.location: set together with ssl.truststore.certificates; give one or the other');
    return undefined;
  }
  if (type !== 'PEM') {
    problems.push(`ssl.truststore.type: ${type} truststores cannot be read by krill: set ssl.truststore.type=PEM with the CA certificates in PEM`);
    return undefined;
  }
  if (inline !== null) return inline;
  const bytes = readConfigured('ssl.truststore.location', location!, problems);
  if (bytes) files.push(location!);
  return bytes ?? undefined;
}

function versions(get: SslGetter, problems: string[]): Pick<tls.SecureContextOptions, 'minVersion' | 'maxVersion'> {
  const wanted = (get('ssl.enabled.protocols') ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const unknown = wanted.filter((v) => !(v in TLS_VERSIONS));
  if (unknown.length > 0 || wanted.length === 0) {
    problems.push(`ssl.enabled.protocols: ${unknown.length ? `${unknown.join(', ')} not supported` : 'empty'}; krill speaks TLSv1.2 and TLSv1.3`);
    return {};
  }
  const sorted = wanted.sort();
  return { minVersion: TLS_VERSIONS[sorted[0]], maxVersion: TLS_VERSIONS[sorted[sorted.length - 1]] };
}

/** Checks the options by making a secure context of them, which reads the key, the certificates and the password. */
function checked(options: tls.SecureContextOptions, problems: string[], what: string): void {
  try {
    tls.createSecureContext(options);
  } catch (err) {
    problems.push(`${what}: ${(err as Error).message}`);
  }
}

/** Throws one ConfigError with every problem, each prefixed with where it is (`listener SSL`). */
function raise(where: string, problems: string[]): void {
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `${where}: ${p}`));
}

/** The server side of a TLS listener; throws ConfigError naming every problem. */
export function serverTls(listener: string, get: SslGetter): ServerTls {
  const problems: string[] = [];
  const files: string[] = [];
  const identity = keystore(get, problems, files);
  if (!identity && problems.length === 0)
    problems.push('ssl.keystore.location: not set: a TLS listener needs a key and certificate (or ssl.keystore.certificate.chain and ssl.keystore.key)');
  const ca = truststore(get, problems, files);
  const clientAuth = (get('ssl.client.auth') ?? 'none') as ClientAuth;
  const ciphers = get('ssl.cipher.suites') || undefined;
  const options: tls.TlsOptions = {
    ...identity,
    ca,
    ciphers,
    ...versions(get, problems),
    requestCert: clientAuth !== 'none',
    rejectUnauthorized: clientAuth === 'required',
  };
  if (problems.length === 0) checked(options, problems, identity?.pfx ? 'ssl.keystore.location' : 'ssl.keystore');
  raise(`listener ${listener}`, problems);
  return { options, clientAuth, files };
}

/**
 * The client side, for a broker connecting to another over an SSL inter-broker listener: the broker's own
 * keystore (presented when the other asks for a certificate) and truststore, as Kafka's brokers use them.
 */
export function clientTls(listener: string, get: SslGetter): tls.ConnectionOptions {
  const problems: string[] = [];
  const files: string[] = [];
  const identity = keystore(get, problems, files);
  const ca = truststore(get, problems, files);
  const verifyHost = (get('ssl.endpoint.identification.algorithm') ?? '').toLowerCase() === 'https';
  const options: tls.ConnectionOptions = {
    ...identity,
    ca,
    ...versions(get, problems),
    rejectUnauthorized: true,
    ...(verifyHost ? {} : { checkServerIdentity: () => undefined }),
  };
  if (problems.length === 0) checked(options, problems, 'ssl.keystore');
  raise(`inter-broker listener ${listener}`, problems);
  return options;
}

/** A TLS listener's settings and principal rules, both checked: one ConfigError naming every problem. */
export function listenerTls(listener: string, get: SslGetter): { tls: ServerTls; principals: SslPrincipalMapper } {
  let principals: SslPrincipalMapper | null = null;
  const problems: string[] = [];
  try {
    principals = SslPrincipalMapper.parse(get('ssl.principal.mapping.rules') ?? 'DEFAULT');
  } catch (err) {
    problems.push(...(err as ConfigError).problems.map((p) => `listener ${listener}: ${p}`));
  }
  try {
    const settings = serverTls(listener, get);
    if (principals) return { tls: settings, principals };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  throw new ConfigError(problems);
}

/** What inter-broker TLS needs of the broker config: its listeners and their SSL configs. */
export interface InterBrokerConfig {
  readonly clientListeners: readonly { name: string; securityProtocol: string }[];
  readonly interBrokerListener: string;
  listenerConfig(listener: string, name: string): string | null;
}

/** How this broker connects to the others: TLS with its own keystore and truststore when the inter-broker listener is SSL or SASL_SSL. */
export function interBrokerTls(config: InterBrokerConfig): tls.ConnectionOptions | undefined {
  const name = config.interBrokerListener;
  const listener = config.clientListeners.find((l) => l.name === name);
  if (listener?.securityProtocol !== 'SSL' && listener?.securityProtocol !== 'SASL_SSL') return undefined;
  return clientTls(name, (n) => config.listenerConfig(name, n));
}

/**
 * The client side for Kafka client properties (a --command-config file): TLS settings when
 * security.protocol is SSL, undefined for PLAINTEXT; Kafka's client defaults for what the file leaves out.
 * Throws ConfigError naming what cannot be used.
 */
export function clientTlsFromProperties(text: string): tls.ConnectionOptions | undefined {
  const props = parseProperties(text).values;
  const protocol = (props['security.protocol'] ?? 'PLAINTEXT').trim().toUpperCase();
  if (protocol === 'PLAINTEXT') return undefined;
  if (protocol !== 'SSL') throw new ConfigError(`security.protocol: ${protocol} is not supported here (PLAINTEXT, SSL)`);
  return clientTls('client', (name) => props[name]?.trim() ?? SSL_CONFIGS[name]?.default ?? null);
}
