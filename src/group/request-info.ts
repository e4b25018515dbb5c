// What the coordinator records about a client: its client id and host (Kafka shows "/<address>").

/** The host as Kafka shows it, from the peer's IP address. */
export function clientHost(address: string): string {
  return address ? '/' + address : '';
}

/** The request header's client id; a null one is recorded as ''. */
export function clientId(headerClientId: string | null | undefined): string {
  return headerClientId ?? '';
}
