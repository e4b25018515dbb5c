// How a SASL listener is configured, by Kafka's names:
//   sasl.enabled.mechanisms (or listener.name.<l>.sasl.enabled.mechanisms)
//   listener.name.<l>.<mechanism>.sasl.jaas.config, falling back to sasl.jaas.config
//   connections.max.reauth.ms (or listener.name.<l>.<mechanism>.connections.max.reauth.ms)
//   connection.failed.authentication.delay.ms
// PLAIN's users are its PlainLoginModule's user_<name>="<password>" options; SCRAM's come from the
// credential store (AlterUserScramCredentials), as in Kafka; OAUTHBEARER takes its OAuthBearerLoginModule's
// unsecuredValidator* options. The mechanisms krill cannot serve (GSSAPI, Kafka's default) are refused at start.
import type { ValueRule } from '../config-value.js';
import { parseJaasConfig, type JaasModule } from './jaas.js';
import { PlainSaslServer } from './sasl-plain.js';
import { ScramSaslServer } from './sasl-scram.js';
import { OAuthBearerSaslServer, unsecuredValidatorOptions } from './sasl-oauthbearer.js';
import { isScramMechanism } from './scram.js';
import type { SaslListener } from './sasl-authenticator.js';
import type { SaslServer } from './sasl-server.js';
import type { SaslClientLogin } from './sasl-client.js';
import type { ScramCredentialLookup } from './sasl-scram.js';

export const SUPPORTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;

const LOGIN_MODULES: Record<string, string> = {
  PLAIN: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'SCRAM-SHA-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'SCRAM-SHA-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  OAUTHBEARER: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule',
};

const SCOPED = /^listener\.name\.([a-z0-9_-]+)\.(?:sasl\.enabled\.mechanisms|[a-z0-9-]+\.(?:sasl\.jaas\.config|connections\.max\.reauth\.ms))$/;

/** The rule of a listener-scoped SASL config name (Kafka's listener.name.<l>.… prefix), or undefined. */
export function listenerScopedSaslRule(name: string): ValueRule | undefined {
  if (!SCOPED.test(name)) return undefined;
  if (name.endsWith('.connections.max.reauth.ms')) return { kind: 'long' };
  return { kind: name.endsWith('.sasl.enabled.mechanisms') ? 'list' : 'string' };
}

/** A config's value: `get` for broker-wide names, `given` for listener-scoped ones (null when not set). */
export interface SaslConfigSource {
  get(name: string): string | null;
  given(name: string): string | null;
}

function list(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function enabledMechanisms(src: SaslConfigSource, listener: string): string[] {
  return list(src.given(`listener.name.${listener.toLowerCase()}.sasl.enabled.mechanisms`) ?? src.get('sasl.enabled.mechanisms'));
}

/** The JAAS module of a listener's mechanism, or null when none is configured. Throws on bad syntax. */
export function jaasModule(src: SaslConfigSource, listener: string, mechanism: string): JaasModule | null {
  const name = `listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config`;
  const text = src.given(name) ?? src.get('sasl.jaas.config');
  if (text === null) return null;
  try {
    return parseJaasConfig(text);
  } catch (err) {
    throw new Error(`${src.given(name) !== null ? name : 'sasl.jaas.config'}: ${(err as Error).message}`);
  }
}

function reauthMs(src: SaslConfigSource, listener: string, mechanism: string): number {
  const scoped = src.given(`listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.connections.max.reauth.ms`);
  return Number(scoped ?? src.get('connections.max.reauth.ms'));
}

/** The problems of a SASL listener's configuration, each naming its config. */
export function saslListenerProblems(src: SaslConfigSource, listener: string): string[] {
  const problems: string[] = [];
  const mechanisms = enabledMechanisms(src, listener);
  if (mechanisms.length === 0) problems.push(`sasl.enabled.mechanisms: listener ${listener} is SASL and enables no mechanism`);
  for (const m of mechanisms) {
    if (!(SUPPORTED_MECHANISMS as readonly string[]).includes(m)) {
      problems.push(`sasl.enabled.mechanisms: ${m} on listener ${listener} is not supported by krill (${SUPPORTED_MECHANISMS.join(', ')} are)`);
      continue;
    }
    let module: JaasModule | null;
    try {
      module = jaasModule(src, listener, m);
    } catch (err) {
      problems.push((err as Error).message);
      continue;
    }
    if (module === null) {
      // SCRAM's users are in the credential store and OAUTHBEARER's validator has defaults: no JAAS needed.
      if (m === 'PLAIN')
        problems.push(
          `listener.name.${listener.toLowerCase()}.plain.sasl.jaas.config: PLAIN on listener ${listener} needs a PlainLoginModule with user_<name>="<password>" options`,
        );
    } else if (module.loginModule !== LOGIN_MODULES[m]) {
      problems.push(`listener.name.${listener.toLowerCase()}.${m.toLowerCase()}.sasl.jaas.config: ${m} takes ${LOGIN_MODULES[m]}, not ${module.loginModule}`);
    } else if (m === 'OAUTHBEARER') {
      try {
        unsecuredValidatorOptions(module.options);
      } catch (err) {
        problems.push(`listener.name.${listener.toLowerCase()}.oauthbearer.sasl.jaas.config: ${(err as Error).message}`);
      }
    }
  }
  return problems;
}

/** What the connections of a SASL listener are given; its configuration has passed saslListenerProblems. */
export function saslListener(src: SaslConfigSource, listener: string, credentials: ScramCredentialLookup): SaslListener {
  const mechanisms = enabledMechanisms(src, listener);
  const factories = new Map<string, () => SaslServer>();
  const maxReauth = new Map<string, number>();
  for (const m of mechanisms) {
    const options = jaasModule(src, listener, m)?.options ?? new Map<string, string>();
    maxReauth.set(m, reauthMs(src, listener, m));
    if (m === 'PLAIN') {
      const users = new Map([...options].filter(([k]) => k.startsWith('user_')).map(([k, v]) => [k.slice(5), v]));
      factories.set(m, () => new PlainSaslServer(users));
    } else if (isScramMechanism(m)) {
      factories.set(m, () => new ScramSaslServer(m, credentials));
    } else if (m === 'OAUTHBEARER') {
      const validator = unsecuredValidatorOptions(options);
      factories.set(m, () => new OAuthBearerSaslServer(validator));
    }
  }
  const delay = Number(src.get('connection.failed.authentication.delay.ms'));
  return {
    mechanisms,
    newServer: (mechanism) => factories.get(mechanism)!(),
    maxReauthMs: (mechanism) => maxReauth.get(mechanism) ?? 0,
    failedAuthenticationDelayMs: delay,
  };
}

/**
 * The login brokers make on the inter-broker listener `listener` when it is SASL: the mechanism of
 * sasl.mechanism.inter.broker.protocol with the username and password of that listener's JAAS module, as
 * Kafka's brokers log in to each other. Returns the problem instead when that cannot be done.
 */
export function interBrokerSaslLogin(src: SaslConfigSource, listener: string): SaslClientLogin | string {
  const mechanism = src.get('sasl.mechanism.inter.broker.protocol') ?? 'GSSAPI';
  // SCRAM is checked against the credentials a cluster keeps in ZooKeeper (this is asked of cluster members only).
  if (mechanism !== 'PLAIN' && !isScramMechanism(mechanism)) {
    return `sasl.mechanism.inter.broker.protocol: ${mechanism} on the inter-broker listener ${listener}: krill's brokers log in to each other with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512`;
  }
  if (!enabledMechanisms(src, listener).includes(mechanism))
    return `sasl.mechanism.inter.broker.protocol: ${mechanism} is not enabled on the inter-broker listener ${listener}`;
  let module: JaasModule | null = null;
  try {
    module = jaasModule(src, listener, mechanism);
  } catch (err) {
    return (err as Error).message;
  }
  const username = module?.options.get('username');
  const password = module?.options.get('password');
  if (username === undefined || password === undefined) {
    const module = mechanism === 'PLAIN' ? 'PlainLoginModule' : 'ScramLoginModule';
    return `listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config: the inter-broker listener's ${module} needs username and password, which brokers log in with`;
  }
  return { mechanism, username, password };
}
