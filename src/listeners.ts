// `listeners` and `advertised.listeners`, read as Kafka reads them: comma-separated NAME://host:port
// entries whose names map to security protocols through `listener.security.protocol.map`, and whose
// controller entries (named in `controller.listener.names`) serve the KRaft quorum, not clients.
//
// krill serves clients on one PLAINTEXT listener and is its own controller, so controller listeners are
// accepted and left alone (a stock KRaft server.properties has one), while a second client listener or a
// TLS/SASL one is something krill cannot honour and is refused at start, with every problem named.

export interface Listener {
  host: string;
  port: number;
}

export interface NamedListener extends Listener {
  /** Upper case, as Kafka normalises listener names (PLAINTEXT when the entry names none). */
  name: string;
  securityProtocol?: string;
}

export interface ResolvedListeners {
  /** The one listener clients connect to. */
  listener: NamedListener;
  /** What Metadata tells clients; port 0 means the port actually bound. */
  advertised: NamedListener;
  /** Controller listeners krill does not open, as written. */
  ignored: string[];
}

export const DEFAULT_PROTOCOL_MAP = 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL';
const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const ENDPOINT = /^(?:([A-Za-z0-9_-]+):\/\/)?(\[[0-9A-Fa-f:.%\w]*\]|[A-Za-z0-9._-]*):(\d+)$/;
const UNROUTABLE = new Set(['0.0.0.0', '::']);

/** Parses one endpoint list; problems are pushed, malformed entries dropped. */
function parseEndpoints(config: string, spec: string, problems: string[]): NamedListener[] {
  const out: NamedListener[] = [];
  const entries = spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) problems.push(`${config}: no listener given`);
  for (const entry of entries) {
    const m = ENDPOINT.exec(entry);
    if (!m) {
      problems.push(`${config}: '${entry}' is not of the form NAME://host:port (e.g. PLAINTEXT://127.0.0.1:9092)`);
      continue;
    }
    const port = Number(m[3]);
    if (port > 65535) {
      problems.push(`${config}: port ${m[3]} in '${entry}' is out of range (0-65535)`);
      continue;
    }
    const name = (m[1] ?? 'PLAINTEXT').toUpperCase();
    if (out.some((l) => l.name === name)) {
      problems.push(`${config}: listener name ${name} appears more than once`);
      continue;
    }
    out.push({ name, host: m[2].replace(/^\[|\]$/g, '') || '127.0.0.1', port });
  }
  return out;
}

function parseProtocolMap(spec: string, problems: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const [name, protocol, extra] = entry.split(':').map((s) => s.trim().toUpperCase());
    if (!name || !protocol || extra !== undefined) {
      problems.push(`listener.security.protocol.map: '${entry}' is not of the form NAME:PROTOCOL`);
    } else if (!SECURITY_PROTOCOLS.includes(protocol)) {
      problems.push(`listener.security.protocol.map: '${protocol}' is not one of ${SECURITY_PROTOCOLS.join(', ')}`);
    } else map.set(name, protocol);
  }
  return map;
}

/**
 * Resolves the client listener and what is advertised for it, from the config values `get` returns.
 * Returns the problems found instead when there are any.
 */
export function resolveListeners(get: (name: string) => string | null): ResolvedListeners | { problems: string[] } {
  const problems: string[] = [];
  const protocols = parseProtocolMap(get('listener.security.protocol.map') ?? DEFAULT_PROTOCOL_MAP, problems);
  const controllerNames = new Set(
    (get('controller.listener.names') ?? '')
      .split(',')
      .map((n) => n.trim().toUpperCase())
      .filter(Boolean),
  );
  const all = parseEndpoints('listeners', get('listeners') ?? '', problems);
  const clients: NamedListener[] = [];
  const ignored: string[] = [];
  for (const l of all) {
    const protocol = protocols.get(l.name);
    if (protocol === undefined) {
      problems.push(`listeners: listener ${l.name} has no security protocol in listener.security.protocol.map`);
    } else if (controllerNames.has(l.name)) {
      ignored.push(`${l.name}://${l.host}:${l.port}`);
    } else if (protocol !== 'PLAINTEXT' && protocol !== 'SASL_PLAINTEXT') {
      problems.push(`listeners: listener ${l.name} uses ${protocol}; krill speaks PLAINTEXT and SASL_PLAINTEXT only (no TLS yet)`);
    } else clients.push({ ...l, securityProtocol: protocol });
  }
  if (all.length > 0 && clients.length === 0 && problems.length === 0) {
    problems.push('listeners: no listener for clients (every one is named in controller.listener.names)');
  }
  if (clients.length > 1) {
    problems.push(`listeners: krill serves clients on one listener, ${clients.map((l) => l.name).join(' and ')} given`);
  }

  const advertisedSpec = get('advertised.listeners');
  let advertised: NamedListener | undefined;
  if (advertisedSpec !== null) {
    for (const a of parseEndpoints('advertised.listeners', advertisedSpec, problems)) {
      if (!all.some((l) => l.name === a.name)) {
        problems.push(`advertised.listeners: ${a.name} is not a listener named in listeners`);
      } else if (UNROUTABLE.has(a.host)) {
        problems.push(`advertised.listeners: ${a.host} in ${a.name} is not an address clients can connect to`);
      } else if (a.name === clients[0]?.name) advertised = a;
    }
  }
  if (!advertised && clients[0] && UNROUTABLE.has(clients[0].host)) {
    // As Kafka: advertised.listeners defaults to listeners, and clients cannot connect to a wildcard.
    problems.push(
      `advertised.listeners: not set, and the listener's ${clients[0].host} (every interface) is not an address clients can connect to: set advertised.listeners=${clients[0].name}://<host clients reach>:${clients[0].port}`,
    );
  }
  if (problems.length > 0) return { problems };
  const listener = clients[0];
  return {
    listener,
    advertised: advertised ? { ...advertised, port: advertised.port || listener.port } : listener,
    ignored,
  };
}

/** `listeners` with the client listener's host and/or port replaced (--host, --port, startBroker's options). */
export function withAddress(spec: string, resolved: ResolvedListeners, host: string | undefined, port: number | undefined): string {
  const { name } = resolved.listener;
  const h = host ?? resolved.listener.host;
  const entry = `${name}://${h.includes(':') ? `[${h}]` : h}:${port ?? resolved.listener.port}`;
  const others = spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && (ENDPOINT.exec(e)?.[1] ?? 'PLAINTEXT').toUpperCase() !== name);
  return [entry, ...others].join(',');
}
