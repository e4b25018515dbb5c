// Kafka's SSL configs (SslConfigs and BrokerSecurityConfigs) that krill honours, with Kafka's names and
// defaults, and their per-listener form `listener.name.<listener>.ssl.*`, which wins over the plain one for
// that listener as in Kafka. Key material and passwords are sensitive: DescribeConfigs never shows them.
import type { ValueRule } from '../config-value.js';
import { configTable } from '../config-value.js';

export interface SslConfigDef extends ValueRule {
  default: string | null;
  doc: string;
  /** Passwords and private keys: never shown (DescribeConfigs answers null, as Kafka does for PASSWORD configs). */
  sensitive?: true;
}

const text = (doc: string, value: string | null = null): SslConfigDef => ({ kind: 'string', default: value, doc });
const secret = (doc: string): SslConfigDef => ({ kind: 'string', default: null, doc, sensitive: true });

export const SSL_CONFIGS: Readonly<Record<string, SslConfigDef>> = configTable({
  'ssl.keystore.type': { kind: 'enum', choices: ['JKS', 'PKCS12', 'PEM'], default: 'JKS', doc: 'PEM or PKCS12 (JKS is Java-only: krill cannot read it).' },
  'ssl.keystore.location': text('The keystore file: for PEM, the private key and its certificate chain; for PKCS12, the .p12 file.'),
  'ssl.keystore.password': secret('The PKCS12 keystore password (PEM keystores take ssl.key.password).'),
  'ssl.key.password': secret("The private key's password, for an encrypted PEM key."),
  'ssl.keystore.certificate.chain': text('The certificate chain in PEM, inline (with ssl.keystore.type=PEM).'),
  'ssl.keystore.key': secret('The private key in PEM, inline (with ssl.keystore.type=PEM).'),
  'ssl.truststore.type': { kind: 'enum', choices: ['JKS', 'PKCS12', 'PEM'], default: 'JKS', doc: 'PEM (krill reads no JKS or PKCS12 truststore).' },
  'ssl.truststore.location': text('The trusted CA certificates, a PEM file.'),
  'ssl.truststore.password': secret('Accepted for Kafka files; a PEM truststore has none.'),
  'ssl.truststore.certificates': text('The trusted CA certificates in PEM, inline (with ssl.truststore.type=PEM).'),
  'ssl.client.auth': {
    kind: 'enum',
    choices: ['required', 'requested', 'none'],
    default: 'none',
    doc: 'Whether clients must, may or need not present a certificate.',
  },
  'ssl.principal.mapping.rules': text(
    "How a client certificate's distinguished name becomes the principal's name: RULE:pattern/replacement/[LU],..., DEFAULT.",
    'DEFAULT',
  ),
  'ssl.enabled.protocols': { kind: 'list', default: 'TLSv1.2,TLSv1.3', doc: 'The TLS versions accepted (TLSv1.2, TLSv1.3).' },
  'ssl.cipher.suites': { kind: 'list', default: '', doc: 'OpenSSL cipher names for TLSv1.2 connections; empty: the defaults.' },
  'ssl.endpoint.identification.algorithm': text('https: a broker connecting to another checks the host name in its certificate; empty: it does not.', 'https'),
});

const OVERRIDE = /^listener\.name\.([^.]+)\.(ssl\..+)$/;

/** `listener.name.<l>.ssl.x` as the listener (upper case, as Kafka names listeners) and the config it overrides, or null. */
export function listenerOverride(name: string): { listener: string; config: string } | null {
  const m = OVERRIDE.exec(name);
  if (!m || !(m[2] in SSL_CONFIGS)) return null;
  return { listener: m[1].toUpperCase(), config: m[2] };
}

/** The prefixed name of `config` for `listener`, as Kafka spells it (the listener name in lower case). */
export function overrideName(listener: string, config: string): string {
  return `listener.name.${listener.toLowerCase()}.${config}`;
}
