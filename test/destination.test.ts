import http from 'node:http';
import { allowPrivateDestinations, assertPublicDestination, isPrivateAddress } from '../activities/providers/destination';
import { fetchDocument } from '../activities/providers/http-fetch';
import { allowsPrivateNetworks, loadConfig } from '../apps/shared/config';

afterEach(() => allowPrivateDestinations(true));

test('private, loopback, link-local and metadata addresses are recognised', () => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1']) {
    expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: true });
  }
  for (const a of ['93.184.216.34', '145.97.39.155', '2a00:1450:4001:82b::200e']) expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: false });
});

test('with private networks refused, a fetch to one fails without retry, redirects included', async () => {
  const target = http.createServer((_q, r) => r.end('<rss/>'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const port = (target.address() as { port: number }).port;
  try {
    allowPrivateDestinations(false);
    await expect(assertPublicDestination(`http://127.0.0.1:${port}/feed`)).rejects.toThrow(/private address \(127\.0\.0\.1\)/);
    await expect(assertPublicDestination('http://[::1]/')).rejects.toThrow(/private address/);
    await expect(assertPublicDestination('http://localhost/')).rejects.toThrow(/private address/);
    await expect(fetchDocument(`http://127.0.0.1:${port}/feed`, { timeoutMs: 1000, maxBytes: 1000 })).rejects.toMatchObject({ retryable: false });
    expect(target.listenerCount('request')).toBe(1);
    allowPrivateDestinations(true);
    await expect(fetchDocument(`http://127.0.0.1:${port}/feed`, { timeoutMs: 1000, maxBytes: 1000 })).resolves.toMatchObject({ status: 'ok', body: '<rss/>' });
  } finally {
    target.close();
  }
});

test('production refuses private networks unless configured otherwise', () => {
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'production' }))).toBe(false);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }))).toBe(true);
  expect(allowsPrivateNetworks(loadConfig({ NODE_ENV: 'development' }))).toBe(true);
});
