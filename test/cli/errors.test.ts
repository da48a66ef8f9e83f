/**
 * The CLI's exit codes and one-line messages for the envelope codes a test server does not easily produce (out of
 * credit, a plan limit, a rate limit, a busy fleet): the class comes from the status, or from the code when a
 * socket frame or a failed job carries no status; the message says what to do next.
 */
import { describe, expect, it } from 'vitest';
import { SpeechgateError } from 'speechgate/sdk';
import { CliError, EXIT, exitCodeOf, exitCodeOfCode, messageOf } from '../../src/cli/errors.js';

const envelope = (status: number, code: string, details: Record<string, unknown> = {}, message = 'The server said no.') =>
  new SpeechgateError({ code, status, message, retryable: false, details, requestId: 'req_1' });

describe('exit codes', () => {
  it('follow the status class, then the code when there is no status', () => {
    const byStatus: Array<[number, string, number]> = [
      [401, 'invalid_token', EXIT.auth], [403, 'forbidden', EXIT.auth], [404, 'not_found', EXIT.notFound], [
        410, 'session_expired', EXIT.notFound,
      ],
      [400, 'invalid_options', EXIT.invalidInput], [409, 'conflict', EXIT.invalidInput], [413, 'invalid_options', EXIT.invalidInput],
      [415, 'invalid_options', EXIT.invalidInput], [422, 'invalid_body', EXIT.invalidInput], [402, 'insufficient_credit', EXIT.credit],
      [429, 'rate_limited', EXIT.busy], [503, 'unavailable', EXIT.busy], [500, 'internal', EXIT.failure], [
        0, 'network_error', EXIT.network,
      ],
      [0, 'capacity_exceeded', EXIT.busy], [0, 'invalid_token', EXIT.auth],
    ];
    for (const [status, code, exit] of byStatus) expect(exitCodeOf(envelope(status, code)), `${status} ${code}`).toBe(exit);
    expect(exitCodeOfCode('invalid_audio')).toBe(EXIT.invalidInput);
    expect(exitCodeOfCode('worker_lost')).toBe(EXIT.failure);
    expect(exitCodeOf(new CliError('no file', EXIT.usage))).toBe(2);
    expect(exitCodeOf(new Error('a bug'))).toBe(1);
  });
});

describe('messages', () => {
  it('say what to do about each envelope code, on one line, with the request id', () => {
    expect(messageOf(envelope(401, 'key_revoked'))).toBe('key_revoked: The server said no. — run `speechgate login` with a valid key (or '
      + 'pass --key / set SPEECHGATE_API_KEY) [request req_1]');
    expect(messageOf(envelope(402, 'insufficient_credit', { balance: 0.5, topUpUrl: 'https://speech.example.org/billing' }))).toContain(
      'balance 0.5; add credit at https://speech.example.org/billing',
    );
    expect(
      messageOf(envelope(402, 'quota_exceeded', { metric: 'concurrent_transcriptions', limit: 2, used: 2, resetsAt: null })),
    ).toContain('2 of 2 concurrent_transcriptions in use; it frees as running transcriptions end');
    expect(messageOf(envelope(429, 'rate_limited', { retryAfterS: 30 }))).toContain('— retry in 30 s');
    expect(messageOf(envelope(503, 'unavailable'))).toContain('retry in a little while');
    expect(messageOf(envelope(400, 'invalid_options', { field: 'settings.spokenLanguage' }, 'Not a language.\nSee the list.'))).toBe(
      'invalid_options: Not a language. See the list. (settings.spokenLanguage) [request req_1]',
    );
  });

  it('point a 404 at what was looked for: a broadcast\'s code, a key, or a transcription', () => {
    expect(messageOf(envelope(404, 'not_found', {}, 'The broadcast was not found.'))).toContain("— check the broadcast's code (the end of "
      + "the link its owner shared)");
    expect(messageOf(envelope(404, 'not_found', {}, 'The broadcast was not found.'))).not.toContain('transcriptions list');
    expect(messageOf(envelope(404, 'not_found', {}, 'The API key was not found.'))).toContain('`speechgate keys list`');
    expect(messageOf(envelope(404, 'not_found', {}, 'The recording was not found.'))).toContain('`speechgate transcriptions list`');
  });
});
