// Kafka's unsecured JWS tokens (alg "none", empty signature), as OAuthBearerUnsecuredLoginCallbackHandler makes them.
export function unsecuredToken(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

/** A token for `sub` valid for an hour from now. */
export function tokenFor(sub: string, extra: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return unsecuredToken({ sub, iat: now, exp: now + 3600, ...extra });
}
