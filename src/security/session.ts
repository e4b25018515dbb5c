// Who a connection is: the listener it came in on, its security protocol, the peer's address and the
// principal it authenticated as. Authentication (TLS client certificates, SASL) sets the principal; the
// authorizer and the quotas read it. As in Kafka, a connection that has not authenticated, and every
// connection on a PLAINTEXT listener, is User:ANONYMOUS.

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** Kafka's KafkaPrincipal: a type (User, in every principal Kafka's builders make) and a name. */
export interface KafkaPrincipal {
  readonly type: string;
  readonly name: string;
}

export const ANONYMOUS: KafkaPrincipal = Object.freeze({ type: 'User', name: 'ANONYMOUS' });

/** `User:alice`, as ACLs, super.users and the request log write a principal. */
export function principalString(p: KafkaPrincipal): string {
  return `${p.type}:${p.name}`;
}

/** The listener a connection was accepted on. */
export interface ListenerIdentity {
  /** Upper case, as Kafka normalises listener names. */
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
}

/** A connection's identity, one object per connection, shared by every request it sends. */
export interface Session {
  readonly listener: ListenerIdentity;
  /** The peer's IP address, as the socket reports it. */
  readonly clientAddress: string;
  /** ANONYMOUS until the connection authenticates. */
  principal: KafkaPrincipal;
}
