/**
 * A faithful fake of an OpenAI-compatible chat-completions API on loopback: `POST /v1/chat/completions` with a JSON
 * body, answering the shape OpenAI answers (`choices[0].message.content`, `usage`), its error envelope
 * (`{error: {message, type, code}}`) with the status, or nothing at all (a hung server). Records every request.
 * What the model says is `answer(body)`: a summary (FAKE_ANSWER) unless a test sets its own (translation's tests).
 */
import type http from 'node:http';
import { listenOnLoopback } from '../helpers/loopback.js';

export type FakeMode = 'ok' | 'hold' | 'unauthorized' | 'rate_limited' | 'server_error' | 'hang' | 'malformed' | 'not_json';

export interface FakeRequest { method: string; path: string; headers: http.IncomingHttpHeaders; body: any }

export interface FakeChat {
  url: string;
  mode: FakeMode;
  requests: FakeRequest[];
  /** The message content of an `ok` answer, from the request's body. */
  answer: (body: any) => string;
  /** Answers every held request (`hold`) as `ok`. */
  release(): void;
  close(): Promise<void>;
}

export const FAKE_ANSWER = { title: 'Moving Forward Ten Meters', summary: 'The speaker asks to go forward ten meters.' };

export async function startFakeChat(): Promise<FakeChat> {
  const held: Array<() => void> = [];
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, message: string, type: string, code: string | null) => send(
    res, status, { error: { message, type, param: null, code } },
  );
  const completion = (model: string, content: string) => ({
    id: 'chatcmpl-fake', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });
  const loopback = await listenOnLoopback((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      let body: any = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      fake.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return error(res, 404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url');
      }
      if (!body || typeof body !== 'object' || !body.model || !Array.isArray(body.messages)) {
        return error(res, 400, 'you must provide a model parameter', 'invalid_request_error', null);
      }
      const ok = () => send(res, 200, completion(body.model, fake.answer(body)));
      switch (fake.mode) {
        case 'ok': return ok();
        case 'hold': return void held.push(ok);
        case 'unauthorized': return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
        case 'rate_limited': return error(res, 429, 'Rate limit reached for requests.', 'requests', 'rate_limit_exceeded');
        case 'server_error': return error(res, 500, 'The server had an error while processing your request.', 'server_error', null);
        case 'hang': return loopback.hang(res);
        case 'malformed': return send(res, 200, completion(body.model, 'Sure! The talk is about moving forward.'));
        case 'not_json': return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>');
      }
    });
  });
  const fake: FakeChat = {
    url: loopback.url,
    mode: 'ok',
    requests: [],
    answer: () => JSON.stringify(FAKE_ANSWER),
    release: () => held.splice(0).forEach((answer) => answer()),
    close: loopback.close,
  };
  return fake;
}
