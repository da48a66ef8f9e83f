/**
 * The realtime commands run as a user runs them, on the fixture speech against a real server: `stream` (a
 * realtime session: commits as JSON lines ending with `session.done`, or as text lines in a terminal; Ctrl-C cancels
 * it and exits 130), `live`
 * publishing a file into a broadcast while two `listen` processes follow it by its code, one until Ctrl-C (a clean
 * exit 0), one with `--once` until the recording is finalized; an unknown code is 4.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus } from '../helpers/http.js';
import { GO_FORWARD, GO_FORWARD_TEXT, LECTURE, normalise } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';
import { jsonLines, runCli, runInTerminal, startCli } from './run.js';

const server = useTestServer({ env: { REALTIME_SECRET: 'cli-suite-secret-0123456789abcdef0123' } });

const env = () => ({
  SPEECHGATE_URL: server.url, SPEECHGATE_API_KEY: server.apiKey, HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent/config',
});

/** The listener lines a `listen --json` printed, joined. */
const heard = (stdout: string) => normalise(jsonLines(stdout).filter((line) => line.type === 'line').map((line) => line.text).join(' '));

describe('stream', () => {
  it('sends the file at real time and prints every frame as a JSON line, the commits gapless, ending with session.done', async () => {
    const result = await runCli(['stream', GO_FORWARD, '--json', '--language', 'en'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const frames = jsonLines(result.stdout);
    const commits = frames.filter((frame) => frame.type === 'transcript.committed').map((frame) => frame.segment);
    expect(commits.map((segment) => segment.seq)).toEqual(commits.map((_segment, index) => index));
    expect(normalise(commits.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expect(frames.at(-1)).toMatchObject({ type: 'session.done', reason: 'eof' });
  });

  it('refuses session flags with --stream-url (the recording\'s settings apply there) before connecting: exit 2', async () => {
    const result = await runCli(['stream', GO_FORWARD, '--stream-url', 'ws://127.0.0.1:9/nowhere', '--language', 'en'], { env: env() });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--stream-url');
  });

  it('Ctrl-C cancels the session (session.done `cancelled`) and ends with 130', async () => {
    const stream = startCli(['stream', LECTURE, '--json', '--language', 'en'], { env: env() });
    await stream.waitForStdout(/"type":"transcript.committed"/);
    stream.child.kill('SIGINT');
    const ended = await stream.exited;
    expect(ended.code, ended.stderr).toBe(130);
    const lines = jsonLines(ended.stdout);
    expect(lines.find((line) => line.type === 'session.done')).toMatchObject({ reason: 'cancelled' });
    expect(lines.at(-1)).toMatchObject({ error: { code: 'interrupted' }, exitCode: 130 });
  });

  it('in a terminal prints the commits as lines and says how the session ended', async () => {
    const result = await runInTerminal(['stream', GO_FORWARD, '--fast'], env());
    expect(result.code, result.stdout).toBe(0);
    const lines = result.stdout.split(/\r?\n/);
    const done = lines.findIndex((line) => line.includes('done (eof)'));
    const ready = lines.findIndex((line) => /session rts_\S+ ready/.test(line));
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(done).toBeGreaterThan(ready);
    // What came between, drafts wiped off their line, is the commits' text.
    const commits = lines.slice(ready + 1, done).map((line) => line.split('\x1b[2K').at(-1)!);
    expect(normalise(commits.join(' '))).toMatch(GO_FORWARD_TEXT);
  });
});

describe('live and listen', () => {
  it('publishes a file into a broadcast while listeners follow it by its code; Ctrl-C ends a listener cleanly, --once at '
    + 'finalize', async () => {
    // hideBelow 0: listeners see every line (whisper-tiny hears "Go" with less confidence than the default policy shows).
    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: 'CLI hall', settings: { spokenLanguage: 'en', confidencePolicy: { hideBelow: 0 } } }),
      201,
    );
    const listener = startCli(['listen', broadcast.code, '--json'], { env: env() });
    const once = startCli(['listen', broadcast.code, '--once', '--json'], { env: env() });
    await listener.waitForStdout(/"type":"broadcast"/);
    await once.waitForStdout(/"type":"broadcast"/);

    const live = await runCli(
      ['live', GO_FORWARD, '--broadcast', broadcast.id, '--language', 'en', '--name', 'CLI live', '--json'], { env: env() },
    );
    expect(live.code, live.stderr).toBe(0);
    const frames = jsonLines(live.stdout);
    const published = normalise(
      frames.filter((frame) => frame.type === 'transcript.committed').map((frame) => frame.segment.text).join(' '),
    );
    expect(published).toMatch(GO_FORWARD_TEXT);
    const stopped = frames.at(-1);
    expect(stopped).toMatchObject({ type: 'live.stopped', state: 'ended', broadcasts: [{ id: broadcast.id, code: broadcast.code }] });
    expect(frames.some((frame) => frame.type === 'session.done')).toBe(true);

    // Both listeners followed that recording and printed its lines as they committed.
    for (const follower of [listener, once]) {
      await follower.waitForStdout(new RegExp(`"type":"recording","recordingId":"${stopped.recordingId}"`));
      await follower.waitForStdout(/"type":"line"/);
    }
    await listener.waitForStdout((stdout) => GO_FORWARD_TEXT.test(heard(stdout)));
    listener.child.kill('SIGINT');
    const ended = await listener.exited;
    expect(ended.code, ended.stderr).toBe(0);
    expect(heard(ended.stdout)).toMatch(GO_FORWARD_TEXT);

    // --once: the recording finalized (the accurate pass may amend lines in place), then the listener ended itself.
    const finalized = await once.exited;
    expect(finalized.code, finalized.stderr).toBe(0);
    const lines = jsonLines(finalized.stdout);
    expect(lines.filter((line) => line.type === 'state').map((line) => line.state).at(-1)).toBe('finalized');
    expect(heard(finalized.stdout)).toMatch(GO_FORWARD_TEXT);
  });

  it('a private broadcast needs its password: none or a wrong one is refused (3), the right one lets the listener wait for '
    + 'it', async () => {
    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: 'CLI vault', access: 'private', password: 'open sesame' }), 201,
    );
    const none = await runCli(['listen', broadcast.code], { env: env() });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('is private: pass --password');
    const wrong = await runCli(['listen', broadcast.code, '--password', 'nope', '--json'], { env: env() });
    expect(wrong.code).toBe(3);
    expect(jsonLines(wrong.stdout)).toEqual([expect.objectContaining(
      { error: expect.objectContaining({ code: 'forbidden' }), exitCode: 3 },
    )]);

    const listener = startCli(['listen', broadcast.code, '--password', 'open sesame'], { env: env() });
    await eventually(() => expect(listener.stderr).toContain('waiting for the broadcast to start'));
    listener.child.kill('SIGINT');
    const ended = await listener.exited;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toBe('');
  });

  it('in a terminal, live names where listeners find it; an unknown code is not found (4)', async () => {
    const unknown = await runCli(['listen', 'no-such-broadcast-code'], { env: env() });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/^speechgate: not_found: /);

    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: 'CLI room', settings: { spokenLanguage: 'en' } }), 201,
    );
    const live = await runCli(['live', GO_FORWARD, '--fast', '--broadcast', broadcast.id, '--language', 'en'], { env: env() });
    expect(live.code, live.stderr).toBe(0);
    expect(normalise(live.stdout)).toMatch(GO_FORWARD_TEXT);
    expect(live.stderr).toContain(`speechgate listen ${broadcast.code}`);
    expect(live.stderr).toMatch(/recording rec_\S+ ended/);
  });
});
