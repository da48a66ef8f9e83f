/**
 * The GraphQL WebSocket (graphql-ws at /graphql) is bounded like the other sockets: a message over
 * GRAPHQL_WS_MAX_PAYLOAD closes it (1009) without the gateway buffering it, anything before `connection_init` closes
 * it (4401), silence past GRAPHQL_WS_INIT_TIMEOUT_S closes it (4408), and one connection runs at most
 * GRAPHQL_WS_MAX_OPERATIONS operations at once. The server answers others throughout. A form-encoded POST /graphql
 * is 415.
 */
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({
  workers: [], env: { GRAPHQL_WS_MAX_OPERATIONS: '3', GRAPHQL_WS_INIT_TIMEOUT_S: '1', GRAPHQL_WS_MAX_PAYLOAD: '65536' },
});

type Message = { id?: string; type: string; payload?: unknown };

/** A graphql-ws socket that records what it receives and how it closed. */
function connect(withKey = true) {
  const socket = new WebSocket(
    `${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws',
    withKey ? { headers: { authorization: `Bearer ${server.apiKey}` } } : {},
  );
  const messages: Message[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as Message);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on(
    'close', (code, reason) => resolve({ code, reason: reason.toString() }),
  ));
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
  });
  /** The first message received that matches, waiting for it. */
  const receive = async (match: (message: Message) => boolean): Promise<Message> => {
    for (;;) {
      const found = messages.find(match);
      if (found) return found;
      await Promise.race([
        new Promise<void>((resolve) => waiters.push(resolve)),
        closed.then(() => { throw new Error(`closed before the message came: ${JSON.stringify(messages)}`); }),
      ]);
    }
  };
  return { socket, messages, closed, opened, receive, send: (message: unknown) => socket.send(JSON.stringify(message)) };
}

async function healthy() {
  expect((await server.request('/v1/health')).status).toBe(200);
}

describe('the GraphQL WebSocket', () => {
  it('closes a socket whose message is over the payload limit (1009), with no credential or with one', async () => {
    for (const withKey of [false, true]) {
      const client = connect(withKey);
      await client.opened;
      client.socket.send(`{"type":"connection_init","payload":{"pad":"${'x'.repeat(200_000)}"}}`);
      expect((await client.closed).code).toBe(1009);
    }
    await healthy();
  });

  it('closes a socket that subscribes before connection_init (4401), and one that stays silent (4408)', async () => {
    const eager = connect();
    await eager.opened;
    eager.send({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect((await eager.closed).code).toBe(4401);
    const silent = connect();
    await silent.opened;
    expect((await silent.closed).code).toBe(4408);
    await healthy();
  });

  it('runs at most GRAPHQL_WS_MAX_OPERATIONS operations on one connection; one more is refused, and a finished one frees its '
    + 'place', async () => {
    const created = await server.postJson('/v1/transcriptions', { url: 'https://example.org/a.mp3' });
    const { id } = (await created.json()) as { id: string };
    const client = connect();
    await client.opened;
    client.send({ type: 'connection_init' });
    await client.receive((message) => message.type === 'connection_ack');
    const subscribe = (opId: string) => client.send({ id: opId, type: 'subscribe', payload: { query: 'subscription ($id: ID!) { '
      + 'transcriptionEvents(id: $id) { __typename } }', variables: { id } } });
    for (const opId of ['a', 'b', 'c']) subscribe(opId);
    subscribe('d');
    const refused = await client.receive((message) => message.id === 'd' && message.type === 'error');
    expect(refused.payload).toEqual([expect.objectContaining({ extensions: expect.objectContaining({
      code: 'invalid_state', details: { limit: 3 },
    }) })]);
    expect(refused.payload as Array<{ message: string }>).toEqual([expect.objectContaining({
      message: expect.stringContaining('GRAPHQL_WS_MAX_OPERATIONS'),
    })]);
    // The three still run (none was answered with an error), and completing one lets another start.
    expect(client.messages.filter((message) => ['a', 'b', 'c'].includes(message.id ?? '') && message.type === 'error')).toEqual([]);
    client.send({ id: 'a', type: 'complete' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    client.send({ id: 'e', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await client.receive((message) => message.id === 'e' && message.type === 'next')).toMatchObject({
      payload: { data: { __typename: 'Query' } },
    });
    client.socket.close();
    await healthy();
  });

  it('a form-encoded POST /graphql is 415 naming Content-Type', async () => {
    const response = await server.request('/graphql', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=%7B__typename%7D',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'invalid_options', data: { details: { field: 'Content-Type' } } });
  });
});
