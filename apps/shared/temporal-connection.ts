import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';

/**
 * How every process of the service reaches Temporal (the API, the worker, the scripts, the tests and
 * the benchmarks): the one place that turns TEMPORAL_ADDRESS and TEMPORAL_TLS_* / TEMPORAL_API_KEY into
 * connection options, for the client's Connection and the worker's NativeConnection alike.
 *
 * - Nothing set: plain gRPC (the local dev server).
 * - TEMPORAL_TLS_CA: TLS, the server's certificate checked against this CA (else the system's roots).
 * - TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY: the client certificate of mutual TLS (a self-hosted cluster,
 *   or a Temporal Cloud namespace with certificate auth).
 * - TEMPORAL_TLS_SERVER_NAME: the name the server's certificate must carry when it is not the address's host.
 * - TEMPORAL_API_KEY: Temporal Cloud's API key (sent as a bearer token; TLS with the system's roots).
 *
 * A certificate or key is given as a file path or as the PEM text itself.
 */
export interface TemporalConnectionConfig {
  TEMPORAL_ADDRESS: string;
  TEMPORAL_TLS_CA?: string;
  TEMPORAL_TLS_CERT?: string;
  TEMPORAL_TLS_KEY?: string;
  TEMPORAL_TLS_SERVER_NAME?: string;
  TEMPORAL_API_KEY?: string;
}

export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

export class TemporalConnectionConfigError extends Error {}

/** PEM text as given, or the contents of the file it names. */
function pem(name: string, value: string): Buffer {
  if (value.includes('-----BEGIN')) return Buffer.from(value);
  try {
    return readFileSync(value);
  } catch (err) {
    throw new TemporalConnectionConfigError(`${name}: cannot read ${value} (${(err as Error).message})`);
  }
}

export function temporalConnectionOptions(c: TemporalConnectionConfig): TemporalConnectionOptions {
  if (!!c.TEMPORAL_TLS_CERT !== !!c.TEMPORAL_TLS_KEY) {
    throw new TemporalConnectionConfigError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its key)');
  }
  const wantsTls = !!(c.TEMPORAL_TLS_CA || c.TEMPORAL_TLS_CERT || c.TEMPORAL_TLS_SERVER_NAME || c.TEMPORAL_API_KEY);
  const options: TemporalConnectionOptions = { address: c.TEMPORAL_ADDRESS };
  if (!wantsTls) return options;
  const tls: TLSConfig = {};
  if (c.TEMPORAL_TLS_CA) tls.serverRootCACertificate = pem('TEMPORAL_TLS_CA', c.TEMPORAL_TLS_CA);
  if (c.TEMPORAL_TLS_CERT && c.TEMPORAL_TLS_KEY) {
    tls.clientCertPair = { crt: pem('TEMPORAL_TLS_CERT', c.TEMPORAL_TLS_CERT), key: pem('TEMPORAL_TLS_KEY', c.TEMPORAL_TLS_KEY) };
  }
  if (c.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = c.TEMPORAL_TLS_SERVER_NAME;
  options.tls = tls;
  if (c.TEMPORAL_API_KEY) options.apiKey = c.TEMPORAL_API_KEY;
  return options;
}

/** The TEMPORAL_* connection variables of an environment (scripts and benchmarks that do not load the whole Config). */
export function temporalConnectionEnv(env: NodeJS.ProcessEnv, address?: string): TemporalConnectionConfig {
  return {
    TEMPORAL_ADDRESS: address ?? env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    TEMPORAL_TLS_CA: env.TEMPORAL_TLS_CA || undefined,
    TEMPORAL_TLS_CERT: env.TEMPORAL_TLS_CERT || undefined,
    TEMPORAL_TLS_KEY: env.TEMPORAL_TLS_KEY || undefined,
    TEMPORAL_TLS_SERVER_NAME: env.TEMPORAL_TLS_SERVER_NAME || undefined,
    TEMPORAL_API_KEY: env.TEMPORAL_API_KEY || undefined,
  };
}
