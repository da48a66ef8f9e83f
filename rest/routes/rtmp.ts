/** RTMP ingest: the account's stream key and status, its rotation, and the signed monitor stream (src/live/rtmp-ingests.ts). */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { RotateRtmpKeyDocument, RtmpDocument, RtmpStatusFieldsFragmentDoc } from '../../src/generated/graphql.js';
import { ffmpegPath } from '../../workers/engine/index.js';
import { single } from '../query.js';
import { fragmentSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const rtmpStatusSchema = fragmentSchema(RtmpStatusFieldsFragmentDoc);

export const rtmpRoutes: RouteSpec[] = [
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
    response: { status: 200, description: 'The RTMP status record.', schema: rtmpStatusSchema },
  }),
  graphqlRoute({
    method: 'post', path: '/v1/rtmp/key', operationId: 'rotateRtmpKey', tags: ['rtmp'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RotateRtmpKeyDocument,
    variables: () => ({}),
    response: { status: 200, description: 'The RTMP status record with the new `streamKey`.', schema: rtmpStatusSchema },
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
      const source = await ctx.services.rtmp.monitor({
        account: single(req.query.account), exp: single(req.query.exp), sig: single(req.query.sig),
      });
      const abort = new AbortController();
      const child = spawn(
        ffmpegPath(),
        [
          '-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'flv', '-i', 'pipe:0', '-vn', '-ac', '1', '-c:a', 'libmp3lame', '-b:a',
          '64k', '-f', 'mp3', 'pipe:1',
        ],
        { stdio: ['pipe', 'pipe', 'ignore'] },
      );
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
