import { Writable } from 'node:stream';
import pino, { Level, Logger } from 'pino';

/** A logger whose every line is kept in `lines`: for tests that check what is (never) logged. */
export function capturedLogger(level: Level = 'trace'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  return { logger: pino({ level }, sink), lines };
}
