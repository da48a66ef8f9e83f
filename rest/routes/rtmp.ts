/** RTMP ingest: the account's stream key and status, its rotation, and the signed monitor stream (src/live/rtmp-ingests.ts). */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { RotateRtmpKeyDocument, RtmpDocument } from '../../src/generated/graphql.js';
import { ffmpegPath } from '../../workers/engine/index.js';
import { graphqlRoute, type RouteEntry } from '../types.js';
import { single } from '../query.js';

const rtmpStatus = {
  type: 'object',
  required: ['serverUrl', 'maskedStreamKey', 'monitorUrl', 'monitorExpiresAt'],
  properties: {
    serverUrl: { type: 'string', description: 'The RTMP server URL, `rtmp://<host>:<RTMP_PORT>/live` (or RTMP_PUBLIC_URL). An encoder '
      + 'publishes to `<serverUrl>/<streamKey>` (OBS: Server = serverUrl, Stream Key = streamKey).' },
    streamKey: { type: 'string', nullable: true, description: 'The whole stream key: only in the first answer of `GET /v1/rtmp` and in '
      + 'the answer of `POST /v1/rtmp/key`. It is stored hashed; every later answer has null here and carries `maskedStreamKey`. Lost '
      + 'it? Rotate it.' },
    maskedStreamKey: { type: 'string', description: 'The key with all but its last four characters hidden.' },
    transcriptionId: { type: 'string', nullable: true, description: 'The live transcription the key records into, made with the key '
      + '(source `{kind: "stream", url: serverUrl}`); if it is archived or deleted, the next answer binds a new one. Each publish is '
      + 'one recording of it: started when publishing starts, stopped (then finalized) when publishing stops.' },
    audio: {
      type: 'object', nullable: true, required: ['codec', 'since'],
      description: 'What is coming in now; null while nobody publishes on the key.',
      properties: {
        codec: { type: 'string', description: 'FLV sound format: `aac`, `mp3`, `speex`, `pcm_alaw`, `pcm_mulaw`, `pcm_s16le`, '
          + '`nellymoser`, …' },
        sampleRate: { type: 'integer', nullable: true, description: 'Hz.' },
        channels: { type: 'integer', nullable: true },
        since: { type: 'string', description: 'When this publish started (ISO 8601).' },
      },
    },
    monitorUrl: { type: 'string', description: 'A signed URL, valid an hour, that streams the incoming audio as MP3 (no credential: the '
      + 'signature is one; a tampered or expired one is 403; 404 while nobody publishes).' },
    monitorExpiresAt: { type: 'string', format: 'date-time' },
  },
};

export const rtmpRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/rtmp', operationId: 'getRtmp', tags: ['rtmp'],
    summary: 'The account\'s RTMP ingest: server URL, stream key (in full only in the first answer), incoming audio, monitor URL.',
    description: [
      'Publish audio (or audio and video: video is ignored) with any RTMP encoder to `<serverUrl>/<streamKey>`, e.g. '
        + '`ffmpeg -re -i talk.wav -c:a aac -f flv rtmp://host:1935/live/<streamKey>`. A wrong key is refused at the publish (the '
        + 'connection closes; nothing is recorded); one publish per key at a time.',
      'Each publish records into the key\'s live transcription (`transcriptionId`): a recording starts when publishing starts, the audio '
        + 'is decoded to 16 kHz mono and transcribed live as a pulled stream is (events, transcript, captions as for any live '
        + 'recording), and the recording is stopped (then finalized) when the encoder stops or drops. The next publish starts a new '
        + 'recording.',
      'The first call makes the key and shows it in full (`streamKey`); it is stored only hashed, so later calls show `maskedStreamKey`. '
        + '`POST /v1/rtmp/key` replaces it.',
    ].join('\n\n'),
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: RtmpDocument,
    variables: () => ({}),
    result: (data) => ({ status: 200, body: data.rtmp }),
    response: { status: 200, description: 'The RTMP status record.', schema: rtmpStatus },
  }),
  graphqlRoute({
    method: 'post', path: '/v1/rtmp/key', operationId: 'rotateRtmpKey', tags: ['rtmp'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RotateRtmpKeyDocument,
    variables: () => ({}),
    result: (data) => ({ status: 200, body: data.rotateRtmpKey }),
    response: { status: 200, description: 'The RTMP status record with the new `streamKey`.', schema: rtmpStatus },
  }),
  {
    method: 'get', path: '/v1/rtmp/monitor', operationId: 'getRtmpMonitor', tags: ['rtmp'],
    auth: { mode: 'public', scopes: [] },
    parameters: [
      { name: 'account', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
    ],
    response: { status: 200, description: 'MP3 (mono, 64 kb/s) for as long as the publish lasts.', contentType: 'audio/mpeg' },
    errors: [{ status: 403, code: 'forbidden' }, { status: 404, code: 'not_found' }],
    handler: async (req, res, ctx) => {
      const source = await ctx.services.rtmp.monitor({ account: single(req.query.account), exp: single(req.query.exp), sig: single(req.query.sig) });
      const abort = new AbortController();
      const child = spawn(ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'flv', '-i', 'pipe:0', '-vn', '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', 'pipe:1'], { stdio: ['pipe', 'pipe', 'ignore'] });
      const stop = () => {
        abort.abort();
        if (child.exitCode === null) child.kill('SIGKILL');
      };
      res.on('close', stop);
      child.on('error', stop);
      child.stdin.on('error', () => undefined);
      Readable.from(source(abort.signal)).pipe(child.stdin);
      res.status(200).setHeader('Content-Type', 'audio/mpeg');
      res.setHeader('Cache-Control', 'no-store');
      child.stdout.pipe(res);
    },
  },
];
