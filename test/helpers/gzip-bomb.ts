import http from 'node:http';
import { gzipSync } from 'node:zlib';

/**
 * A real HTTP server on 127.0.0.1 whose every answer is a gzip bomb: `inflatedMiB` MiB of zeros
 * (a JSON-looking start, then spaces) sent as concatenated gzip members of 1 MiB each, about 1 KiB
 * apiece on the wire. `requests` counts the requests it answered.
 */
export interface GzipBomb {
  url: string;
  inflatedBytes: number;
  requests: number;
  close(): Promise<void>;
}

export async function startGzipBomb(inflatedMiB = 512, status = 200): Promise<GzipBomb> {
  const member = gzipSync(Buffer.alloc(1024 * 1024, 0x20), { level: 9 });
  const head = gzipSync(Buffer.from('{"data": "'));
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    let i = 0;
    const write = () => {
      while (i < inflatedMiB) {
        i++;
        if (!res.write(i === 1 ? Buffer.concat([head, member]) : member)) return void res.once('drain', write);
      }
      res.end();
    };
    res.on('close', () => (i = inflatedMiB + 1));
    write();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    inflatedBytes: inflatedMiB * 1024 * 1024,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
