import http from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  allowPrivateDestinations,
  BlockedDestinationError,
  DestinationPolicy,
  destinationPolicy,
  guardedFetch,
  isPrivateAddress,
} from '../../activities/providers/destination';
import { z } from 'zod';
import { HubSpotClient } from '../../activities/providers/crm/hubspot';
import { HunterClient } from '../../activities/providers/enrichment/hunter';
import { fetchDocument, PROVIDER_RESPONSE_MAX_BYTES, readLimited, ResponseTooLargeError } from '../../activities/providers/http-fetch';
import { chatJson } from '../../activities/providers/llm/chat-json';
import { requestJson } from '../../activities/providers/outcome';
import { allowsPrivateNetworks, loadConfig } from '../../apps/shared/config';
import { GzipBomb, startGzipBomb } from '../helpers/gzip-bomb';

/** A local server that records what reaches it and answers with `handler`. */
interface Recorder {
  port: number;
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}
async function serve(host: string, port: number, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((r, j) => server.once('error', j).listen(port, host, r));
  return { port: (server.address() as { port: number }).port, requests, close: () => new Promise((r) => server.close(() => r())) };
}

// In these tests 127.0.0.1 stands for a public server and 127.0.0.2 for the private network behind it
// (both loopback, so nothing leaves the machine); the rule is the real one for every other address.
const PUBLIC_STAND_IN = '127.0.0.1';
const PRIVATE_TARGET = '127.0.0.2';
const denyPolicy = (
  resolve: DestinationPolicy['resolve'] = async (h) => [{ address: h === 'localhost' ? '127.0.0.1' : PRIVATE_TARGET, family: 4 }],
): DestinationPolicy => ({
  allowPrivate: false,
  resolve,
  isPrivate: (a) => a !== PUBLIC_STAND_IN && isPrivateAddress(a),
});

let publicServer: Recorder;
let privateServer: Recorder;
beforeAll(async () => {
  publicServer = await serve(PUBLIC_STAND_IN, 0, (req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) return void res.writeHead(302, { location: to }).end();
    if (req.url === '/gzip') return void res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync('unzipped body'));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('public');
  });
  // The same port on the "private" address, so one URL can reach either through DNS.
  privateServer = await serve(PRIVATE_TARGET, publicServer.port, (_req, res) => res.writeHead(200).end('SECRET'));
});
afterAll(async () => {
  await publicServer.close();
  await privateServer.close();
});
beforeEach(() => {
  publicServer.requests.length = 0;
  privateServer.requests.length = 0;
});
afterEach(() => allowPrivateDestinations(true));

test('private, loopback, link-local and metadata addresses are recognised', () => {
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    // IPv6 forms that embed 169.254.169.254: IPv4-mapped (as the URL parser writes it), IPv4-compatible, NAT64, 6to4, Teredo.
    '::ffff:a9fe:a9fe',
    '::a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001:0:a9fe:a9fe::1',
  ]) {
    expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: true });
  }
  for (const a of ['93.184.216.34', '145.97.39.155', '2a00:1450:4001:82b::200e']) expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: false });
});

test('with private networks refused, a fetch to one fails without retry and never reaches the server; allowed, it is fetched', async () => {
  const url = `http://127.0.0.1:${publicServer.port}/feed`;
  allowPrivateDestinations(false);
  await expect(fetchDocument(url, { timeoutMs: 1000, maxBytes: 1000 })).rejects.toMatchObject({
    retryable: false,
    message: expect.stringMatching(/private address/),
  });
  await expect(fetchDocument(`http://localhost:${publicServer.port}/feed`, { timeoutMs: 1000, maxBytes: 1000 })).rejects.toMatchObject({ retryable: false });
  await expect(guardedFetch('http://[::1]/')).rejects.toBeInstanceOf(BlockedDestinationError);
  await expect(guardedFetch('file:///etc/passwd')).rejects.toBeInstanceOf(BlockedDestinationError);
  expect(publicServer.requests).toHaveLength(0);
  allowPrivateDestinations(true);
  await expect(fetchDocument(url, { timeoutMs: 1000, maxBytes: 1000 })).resolves.toMatchObject({ status: 'ok', body: 'public' });
  expect(publicServer.requests).toHaveLength(1);
});

test('a redirect to a private address, literal or by name, is refused at that hop; allowed, the same redirect is followed', async () => {
  const base = `http://127.0.0.1:${publicServer.port}`;
  const redirect = (to: string) => `${base}/?to=${encodeURIComponent(to)}`;
  for (const to of [
    `http://${PRIVATE_TARGET}:${privateServer.port}/secret`,
    `http://internal.example:${privateServer.port}/secret`,
    'http://169.254.169.254/latest/meta-data/',
  ]) {
    await expect(guardedFetch(redirect(to), {}, denyPolicy())).rejects.toBeInstanceOf(BlockedDestinationError);
  }
  expect(publicServer.requests).toHaveLength(3); // the first hop was public and was fetched
  expect(privateServer.requests).toHaveLength(0);
  // The test's set-up can reach the private server: only the check stops it.
  const followed = await guardedFetch(redirect(`http://internal.example:${privateServer.port}/secret`), {}, { ...denyPolicy(), allowPrivate: true });
  expect(await followed.text()).toBe('SECRET');
  expect(followed.url).toBe(`http://internal.example:${privateServer.port}/secret`);
  expect(privateServer.requests).toHaveLength(1);
});

test('DNS rebinding: each connection checks the address it connects to, so a host that turns private is refused', async () => {
  // First answer public, every later answer private: a check that resolves before the fetch resolves again would pass.
  const answers: string[] = [];
  const rebinding = denyPolicy(async () => {
    const address = answers.length === 0 ? PUBLIC_STAND_IN : PRIVATE_TARGET;
    answers.push(address);
    return [{ address, family: 4 }];
  });
  const url = `http://rebind.example:${publicServer.port}/feed`;
  const first = await guardedFetch(url, {}, rebinding);
  expect(await first.text()).toBe('public');
  await expect(guardedFetch(url, {}, rebinding)).rejects.toThrow(/^rebind\.example resolves to a private address; not fetched$/);
  expect(answers).toEqual([PUBLIC_STAND_IN, PRIVATE_TARGET]); // one resolution per connection, none beforehand
  expect(privateServer.requests).toHaveLength(0);
  expect(publicServer.requests).toHaveLength(1);
});

test('on a redirect to another origin, credentials stay behind', async () => {
  const to = `http://${PRIVATE_TARGET}:${privateServer.port}/next`;
  const res = await guardedFetch(
    `http://127.0.0.1:${publicServer.port}/?to=${encodeURIComponent(to)}`,
    {
      headers: { authorization: 'Bearer s3cret', 'x-api-key': 'k3y', 'user-agent': 'test-agent' },
    },
    { ...destinationPolicy(), allowPrivate: true },
  );
  expect(res.status).toBe(200);
  expect(publicServer.requests[0]!.headers).toMatchObject({ authorization: 'Bearer s3cret', 'x-api-key': 'k3y' });
  const forwarded = privateServer.requests[0]!.headers;
  expect({ authorization: forwarded.authorization, apiKey: forwarded['x-api-key'], ua: forwarded['user-agent'] }).toEqual({
    authorization: undefined,
    apiKey: undefined,
    ua: 'test-agent',
  });
});

test('compressed answers are decompressed, and the size limit counts the decompressed bytes', async () => {
  allowPrivateDestinations(true);
  const url = `http://127.0.0.1:${publicServer.port}/gzip`;
  await expect(fetchDocument(url, { timeoutMs: 1000, maxBytes: 1000 })).resolves.toMatchObject({ status: 'ok', body: 'unzipped body' });
  await expect(fetchDocument(url, { timeoutMs: 1000, maxBytes: 5 })).rejects.toMatchObject({ retryable: false });
});

test('private networks are refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS is true, whatever NODE_ENV says', () => {
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'production' }))).toBe(false);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'development' }))).toBe(false);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'test' }))).toBe(false);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }))).toBe(true);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }))).toBe(true);
});

describe('a gzip bomb from a tenant-chosen URL (512 MiB inflated, ~0.5 MiB on the wire)', () => {
  let bomb: GzipBomb;
  beforeAll(async () => {
    bomb = await startGzipBomb(512);
  });
  afterAll(() => bomb.close());

  /** Runs `read` and answers its error and how much the process grew meanwhile (resident set, sampled while it runs). */
  async function growthDuring(read: () => Promise<unknown>): Promise<{ error: unknown; grewBytes: number }> {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    let error: unknown;
    try {
      await read();
    } catch (err) {
      error = err;
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    return { error, grewBytes: peak - before };
  }

  test('every provider reader stops at its limit with a clear error, and the process does not grow', async () => {
    allowPrivateDestinations(true);
    const readers: Array<[string, () => Promise<unknown>, (e: unknown) => void]> = [
      [
        'readLimited',
        async () => readLimited(await guardedFetch(`${bomb.url}/raw`), PROVIDER_RESPONSE_MAX_BYTES),
        (e) => expect(e).toBeInstanceOf(ResponseTooLargeError),
      ],
      [
        'requestJson (HubSpot, Hunter, the integration test)',
        () => requestJson(`${bomb.url}/account`, { errorMessage: () => undefined }),
        (e) =>
          expect(e).toMatchObject({
            name: 'ProviderRequestError',
            tooLarge: true,
            retryable: false,
            message: expect.stringContaining(`exceeds the ${PROVIDER_RESPONSE_MAX_BYTES}-byte limit`),
          }),
      ],
      ['Hunter', () => new HunterClient('key', bomb.url).domainSearch('example.nl'), (e) => expect(e).toMatchObject({ tooLarge: true })],
      ['HubSpot', () => new HubSpotClient('token', bomb.url).accountDetails(), (e) => expect(e).toMatchObject({ tooLarge: true })],
      [
        'chatJson (LLM)',
        () => chatJson({ baseUrl: bomb.url, model: 'm' }, { system: 's', user: 'u' }, z.object({}), { temperature: 0 }),
        (e) => expect(e).toMatchObject({ name: 'ProviderError', retryable: false, message: expect.stringContaining('too large') }),
      ],
      [
        'fetchDocument (sources, websites)',
        () => fetchDocument(`${bomb.url}/feed`, { timeoutMs: 30_000, maxBytes: 2 * 1024 * 1024 }),
        (e) => expect(e).toMatchObject({ name: 'FetchError', retryable: false, message: expect.stringContaining('exceeds the 2097152-byte limit') }),
      ],
    ];
    for (const [name, read, check] of readers) {
      const { error, grewBytes } = await growthDuring(read);
      check(error);
      // Reading all of it would hold 512 MiB; the limit is 4 MiB, and decoders inflate only as the reader asks.
      expect({ name, grew: grewBytes < 96 * 1024 * 1024 ? 'under 96 MiB' : `${Math.round(grewBytes / 1024 / 1024)} MiB` }).toEqual({
        name,
        grew: 'under 96 MiB',
      });
    }
  }, 120_000);

  test('a declared Content-Length over the limit is refused before reading', async () => {
    allowPrivateDestinations(true);
    const url = `http://127.0.0.1:${publicServer.port}/plain`;
    await expect(readLimited(await guardedFetch(url), 3)).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(readLimited(await guardedFetch(url), 6).then((b) => b.toString())).resolves.toBe('public');
  });
});
