// Structured logs through pino, to stderr so that stdout carries only the ready line.
import pino, { type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { name: 'krill' } }, pino.destination({ fd: 2, sync: false }));
}
