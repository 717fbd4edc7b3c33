import pino, { DestinationStream, Logger, LoggerOptions } from 'pino';

/** `destination`: where lines go (default stdout); tests pass a sink to read what was logged. */
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    // Secrets never reach a log line, whatever object is logged.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret', '*.password', '*.secret_ciphertext'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
