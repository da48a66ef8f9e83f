/**
 * Slow and half-open clients cannot hold the gateway's sockets (rest/connections.ts): a few hundred slow sockets
 * from one address get CONNECTIONS_PER_ADDRESS of them, the rest a 429 envelope and a closed socket, while
 * /v1/health answers others; a body that stops arriving is 408 and closed; a refused client that keeps its end open
 * is closed by the server. Other client addresses are 127.0.0.2/127.0.0.3 (the loopback network routes them all);
 * 127.0.0.1 is this machine's own address, which a proxy uses, and is not counted.
 */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [], env: { CONNECTIONS_PER_ADDRESS: '40', BODY_IDLE_TIMEOUT_S: '1' } });
const opened: net.Socket[] = [];

afterAll(() => {
  for (const socket of opened) socket.destroy();
});

interface Client { socket: net.Socket; text: () => string; closed: Promise<void> }

/** A raw connection from `localAddress` that has sent `bytes` and reads whatever comes back. */
function connect(localAddress: string, bytes: string): Promise<Client> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port), localAddress });
    opened.push(socket);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => {
      socket.write(bytes);
      resolve({ socket, text: () => text, closed });
    });
    socket.once('error', reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms))]);

describe('connections', () => {
  it('300 slow sockets from one address: 40 are held, the rest refused with 429 and closed; /v1/health answers meanwhile; all '
    + 'released', async () => {
    // Each sends the start of a request and never finishes its headers.
    const slow = await Promise.all(Array.from(
      { length: 300 }, () => connect('127.0.0.2', 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: '),
    ));
    // The server meets them as fast as it can (a busy machine: give it time); past 40 each is refused.
    const refusedNow = () => slow.filter((client) => client.text().startsWith('HTTP/1.1 429'));
    for (let waited = 0; refusedNow().length < 260 && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(
      resolve, 100,
    ));
    const refused = refusedNow();
    expect(refused.length).toBe(260);
    const envelope = JSON.parse(refused[0]!.text().split('\r\n\r\n')[1]!) as { code: string; data: { details: { limit: number } } };
    expect(envelope).toMatchObject({ code: 'rate_limited', data: { details: { limit: 40 } } });
    await within(Promise.all(refused.map((client) => client.closed)), 10_000, 'refused sockets closed by the server');
    // Another client, and this machine, are served while those are held.
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    const other = await connect('127.0.0.3', 'GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(other.closed, 10_000, 'an answer to another address');
    expect(other.text()).toMatch(/^HTTP\/1.1 200/);
    // Once the held ones go, the address may open as many again.
    for (const client of slow) client.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await Promise.all(Array.from({ length: 40 }, () => connect('127.0.0.2', 'GET /v1/health HTTP/1.1\r\nHost: '
      + 'x\r\nConnection: close\r\n\r\n')));
    await within(Promise.all(again.map((client) => client.closed)), 20_000, 'answers after the release');
    expect(again.filter((client) => /^HTTP\/1.1 200/.test(client.text()))).toHaveLength(40);
  }, 60_000);

  it('a request body that stops arriving is 408 in the envelope, and the connection is closed', async () => {
    const stalled = await connect('127.0.0.2', `POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer `
      + `${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`);
    await within(stalled.closed, 15_000, 'the stalled upload closed');
    expect(stalled.text()).toMatch(/^HTTP\/1.1 408/);
    expect(JSON.parse(stalled.text().split('\r\n\r\n')[1]!)).toMatchObject({ status: 408, data: { details: { field: 'body' } } });
  });

  it('a refused client that keeps its end open is closed by the server', async () => {
    // A control character in a header: Node's parser refuses it; the client never closes.
    const refused = await connect('127.0.0.2', 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    await within(refused.closed, 10_000, 'the refused socket closed by the server');
    expect(refused.text()).toMatch(/^HTTP\/1.1 400/);
  });
});
