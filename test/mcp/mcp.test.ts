/**
 * `/v1/mcp` through the official SDK's own client over Streamable HTTP: initialize, the tool list, every tool
 * (a link served on loopback, allowed for this server by LINK_FETCH_ALLOW_HOSTS=127.0.0.1; a base64 file), the
 * transcript resources, scopes per tool, and the 401 that points MCP clients at the protected-resource metadata.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goForward } from '../helpers/http.js';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';
import { eventually } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1', WORKER_SWEEP_MS: '1000' } });
let media: Loopback;
const clients: Client[] = [];

beforeAll(async () => {
  media = await listenOnLoopback((req, res) => {
    if (req.url !== '/speech.wav') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': goForward.length }).end(goForward);
  });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await media?.close();
});

async function connect(key: string = server.apiKey): Promise<Client> {
  const client = new Client({ name: 'speechgate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/v1/mcp`), { requestInit: {
    headers: { authorization: `Bearer ${key}` },
  } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: unknown) => (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

async function callOk(
  client: Client, name: string, args: Record<string, unknown> = {}, onprogress?: (progress: { progress: number; message?: string }) => void,
) {
  const result = await client.callTool(
    { name, arguments: args }, undefined, onprogress ? { onprogress, timeout: 120_000 } : { timeout: 120_000 },
  );
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result as CallToolResult;
}

const recordingIdIn = (text: string) => /recordingId (rec_[A-Za-z0-9_-]+)/.exec(text)?.[1];

describe('MCP server', () => {
  let recordingId: string;

  it('initializes and lists the tools with their scopes', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'speechgate' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'create_broadcast', 'export_transcript', 'get_transcript', 'list_broadcasts', 'list_transcriptions', 'pause_recording',
      'resume_recording', 'search', 'start_recording', 'stop_recording', 'transcribe_file', 'transcribe_link',
    ]);
    expect(tools.find((tool) => tool.name === 'search')).toMatchObject({ annotations: { readOnlyHint: true } });
    expect(tools.find((tool) => tool.name === 'transcribe_link')?.description).toContain('"write"');
  });

  it('transcribes a link, reporting progress while the job runs, and answers the transcript', async () => {
    const client = await connect();
    const progress: number[] = [];
    const result = await callOk(
      client, 'transcribe_link', { url: `${media.url}/speech.wav`, name: 'Directions' }, (p) => progress.push(p.progress),
    );
    const text = textOf(result);
    expect(text.toLowerCase()).toContain('forward');
    recordingId = recordingIdIn(text)!;
    expect(recordingId).toBeTruthy();
    expect(progress.length).toBeGreaterThan(0);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('transcribes an uploaded file sent as base64', async () => {
    const client = await connect();
    const result = await callOk(client, 'transcribe_file', {
      fileName: 'goforward.wav', mimeType: 'audio/wav', contentBase64: goForward.toString('base64'),
    });
    expect(textOf(result).toLowerCase()).toContain('forward');
  });

  it('reads, searches, lists and exports through the read tools', async () => {
    const client = await connect();
    expect(textOf(await callOk(client, 'get_transcript', { recordingId })).toLowerCase()).toContain('forward');
    const listed = JSON.parse(textOf(await callOk(client, 'list_transcriptions', { limit: 10 })));
    expect(listed.items.map((item: { recordingId: string }) => item.recordingId)).toContain(recordingId);
    await eventually(async () => {
      const found = JSON.parse(textOf(await callOk(client, 'search', { q: 'forward' })));
      expect(found.results.map((hit: { recordingId: string }) => hit.recordingId)).toContain(recordingId);
    });
    const srt = await callOk(client, 'export_transcript', { recordingId, format: 'srt' });
    expect(srt.content[1]).toMatchObject({ type: 'resource', resource: { mimeType: expect.stringContaining('subrip') } });
    expect(JSON.stringify(srt.content[1]).toLowerCase()).toContain('forward');
    const pdf = await callOk(client, 'export_transcript', { recordingId, format: 'pdf' });
    const blob = (pdf.content[1] as { resource: { blob: string } }).resource.blob;
    expect(Buffer.from(blob, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('serves transcripts as resources, listed and readable', async () => {
    const client = await connect();
    const uri = `speechgate://recordings/${recordingId}/transcript`;
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(uri);
    const read = await client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text.toLowerCase()).toContain('forward');
    await expect(client.readResource({ uri: 'speechgate://recordings/rec_missing/transcript' })).rejects.toThrow(/not_found/);
  });

  it('creates and lists broadcasts, and starts, pauses, resumes and stops a live recording', async () => {
    const client = await connect();
    const broadcast = JSON.parse(textOf(await callOk(client, 'create_broadcast', { name: 'Town hall' })));
    expect(broadcast).toMatchObject({ name: 'Town hall', access: 'public' });
    const listed = JSON.parse(textOf(await callOk(client, 'list_broadcasts')));
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(broadcast.id);
    const live = await (await server.postJson('/v1/transcriptions/live', { name: 'Standup' })).json();
    const grant = JSON.parse(textOf(await callOk(client, 'start_recording', { transcriptionId: live.id })));
    expect(grant).toMatchObject({ streamUrl: expect.stringContaining('/publish/'), recording: { state: 'live' } });
    const id = grant.recording.id;
    expect(JSON.parse(textOf(await callOk(client, 'pause_recording', { recordingId: id })))).toMatchObject({ id, state: 'paused' });
    expect(JSON.parse(textOf(await callOk(client, 'resume_recording', { recordingId: id })))).toMatchObject({ id, state: 'live' });
    await callOk(client, 'pause_recording', { recordingId: id });
    expect(JSON.parse(textOf(await callOk(client, 'stop_recording', { recordingId: id })))).toMatchObject({ id, state: 'ended' });
  });

  it('refuses a write tool to a read-only key with a tool error naming the scope', async () => {
    const { key } = await server.createKey(['read']);
    const client = await connect(key);
    const refused = await client.callTool({ name: 'create_broadcast', arguments: { name: 'Nope' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/forbidden.*"write"/);
    // Its read tools still work.
    await callOk(client, 'list_broadcasts');
  });

  it('answers 401 with WWW-Authenticate resource_metadata for no or a bad credential', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const auth of [null, 'sg_not_a_real_key']) {
      const res = await server.request('/v1/mcp', { method: 'POST', auth, headers, body });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    }
    expect((await server.request('/.well-known/oauth-protected-resource', { auth: null })).status).toBe(200);
    await expect(connect('sg_not_a_real_key')).rejects.toThrow();
  });

  it('answers malformed JSON-RPC with the SDK\'s errors, and serves concurrent clients', async () => {
    const res = await server.request('/v1/mcp', {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const many = await Promise.all(Array.from({ length: 6 }, async () => (await connect()).listTools()));
    for (const { tools } of many) expect(tools).toHaveLength(12);
  });
});
