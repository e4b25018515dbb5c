// --command-config <client.properties>: Kafka client security settings for `krill <subcommand>`, read as
// Kafka's tools read them (security.protocol, ssl.truststore.location, ssl.keystore.location, ...), with the
// client defaults Kafka has (PLAINTEXT; JKS stores, which krill cannot read and says so).
import fs from 'node:fs';
import type tls from 'node:tls';
import { clientTlsFromProperties } from '../security/tls-context.js';

/** The TLS settings the file asks for; undefined for PLAINTEXT (or no file). Throws an Error naming the problem. */
export function commandConfigTls(file: string | undefined): tls.ConnectionOptions | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--command-config: cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return clientTlsFromProperties(text);
  } catch (err) {
    throw new Error(`--command-config ${file}: ${(err as Error).message}`);
  }
}
