// Every API krill speaks, by key. Handlers in src/handlers/ are checked against these ranges.
import type { MessageDef } from '../schema.js';
import { ApiVersions } from './18-api-versions.js';

export const MESSAGES: readonly MessageDef[] = [ApiVersions];

export const MESSAGES_BY_KEY: ReadonlyMap<number, MessageDef> = new Map(MESSAGES.map((m) => [m.apiKey, m]));
