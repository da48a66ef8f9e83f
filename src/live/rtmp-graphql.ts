import { builder } from '../core/builder.js';
import { baseUrlOf } from '../core/context.js';
import type { RtmpAudio, RtmpStatus } from './rtmp-ingests.js';

const RtmpAudioType = builder.objectRef<RtmpAudio>('RtmpAudio').implement({
  description: 'The audio coming in on the stream key now, as the encoder announced it.',
  fields: (t) => ({
    codec: t.exposeString('codec', { description: 'FLV sound format: `aac`, `mp3`, `speex`, `pcm_alaw`, `pcm_mulaw`, `pcm_s16le`, '
      + '`nellymoser`, …' }),
    sampleRate: t.exposeInt('sampleRate', { nullable: true, description: 'Hz (from the AAC setup, else the FLV tag header).' }),
    channels: t.exposeInt('channels', { nullable: true }),
    since: t.exposeString('since', { description: 'When this publish started (ISO 8601).' }),
  }),
});

const RtmpStatusType = builder.objectRef<RtmpStatus>('RtmpStatus').implement({
  description: 'The account\'s RTMP ingest: where to publish, the stream key (in full only in the answer that made it), what comes in '
    + 'now, and a signed URL to listen to it.',
  fields: (t) => ({
    serverUrl: t.exposeString('serverUrl', { description: 'The RTMP server URL, `rtmp://<host>:<RTMP_PORT>/live` (or RTMP_PUBLIC_URL); '
      + 'an encoder publishes to `<serverUrl>/<streamKey>` (OBS: Server = serverUrl, Stream Key = streamKey).' }),
    streamKey: t.exposeString('streamKey', { nullable: true, description: 'The whole key: only in the first answer (`rtmp`, GET '
      + '/v1/rtmp) and in a rotation\'s (`rotateRtmpKey`, POST /v1/rtmp/key); it is kept hashed, so later answers carry null here and '
      + '`maskedStreamKey`. Lost it? Rotate it.' }),
    maskedStreamKey: t.exposeString('maskedStreamKey', { description: 'The key with all but its last four characters hidden.' }),
    transcriptionId: t.exposeID('transcriptionId', { nullable: true, description: 'The live transcription the key records into, made '
      + 'with the key (source `{kind: "stream", url: serverUrl}`); if it is archived or deleted, the next answer binds a new one. Each '
      + 'publish is one recording of it: started when publishing starts, stopped (then finalized) when publishing stops.' }),
    audio: t.field({
      type: RtmpAudioType, nullable: true, description: 'What is coming in now; null while nobody publishes.',
      resolve: (status) => status.audio,
    }),
    monitorUrl: t.exposeString('monitorUrl', { description: 'Signed URL (valid an hour) streaming the incoming audio as MP3: no '
      + 'credential, the signature is one (a tampered or expired one is 403); 404 while nobody publishes.' }),
    monitorExpiresAt: t.exposeString('monitorExpiresAt', { description: 'When `monitorUrl` stops working (ISO 8601).' }),
  }),
});

builder.queryFields((t) => ({
  rtmp: t.field({
    type: RtmpStatusType,
    description: 'The account\'s RTMP ingest. The first call makes the stream key (shown in full in that answer only) and binds it to a '
      + 'new live transcription.',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => ctx.services.rtmp.status(
      { accountId: ctx.identity!.account.id, principalId: ctx.identity!.principal.id }, baseUrlOf(ctx),
    ),
  }),
}));

builder.mutationFields((t) => ({
  rotateRtmpKey: t.field({
    type: RtmpStatusType,
    description: 'Replaces the account\'s stream key: the new one is in this answer only; the old one is refused from now on (a publish '
      + 'running on it goes on until it stops).',
    authScopes: { write: true },
    resolve: (_root, _args, ctx) => ctx.services.rtmp.rotate(
      { accountId: ctx.identity!.account.id, principalId: ctx.identity!.principal.id }, baseUrlOf(ctx),
    ),
  }),
}));
