/**
 * Recordings over HTTP beyond JSON, for rest/routes/recordings.ts (and the job preview, voice tracks and voices):
 * who reads a recording route (the credentials it takes from the query string: a share code, a listener token, the
 * owner's media token, a person's access token in the URL), and the answers that are files or redirects (an export
 * as an attachment, `/audio`'s redirect or its JSON, signed media files, WAV clips). Who may read what is decided in
 * src/recordings/service.ts.
 */
import type { Request, Response } from 'express';
import { requestBaseUrl } from '../src/core/base-url.js';
import type { Context } from '../src/core/context.js';
import { requireScope } from '../src/core/identity/scopes.js';
import type { Identity } from '../src/core/identity/identity.js';
import { readerOf, type ReaderCredentials } from '../src/recordings/service.js';
import { single } from './query.js';

/** The reader of a recording route, by the recordings module's rule (`readerOf`). */
export function credentialsOf(ctx: Context, query: Record<string, unknown>, allowMedia: boolean): ReaderCredentials {
  return readerOf(
    ctx, { shareCode: single(query.shareCode), media: single(query.media), listenerToken: single(query.listenerToken) }, { allowMedia },
  );
}

/**
 * The reader of a media route (an audio element's `src`: no header can be sent): as `credentialsOf`, and a person's
 * access token in `access_token` counts as their bearer header when the request has none.
 */
export async function mediaCredentialsOf(ctx: Context, query: Record<string, unknown>): Promise<ReaderCredentials> {
  const person = await personFromAccessToken(ctx, query);
  return person ? { accountId: person.account.id } : credentialsOf(ctx, query, true);
}

/** The person whose access token rides in `access_token` (scope `read`), when the request sent no credential of its own. */
export async function personFromAccessToken(ctx: Context, query: Record<string, unknown>): Promise<Identity | null> {
  const token = single(query.access_token);
  if (!token || ctx.identity || ctx.credentialError) return null;
  const identity = await ctx.services.auth.resolver.resolve({ authorization: `Bearer ${token}` });
  return requireScope({ identity, credentialError: null }, 'read');
}

/** `GET /v1/recordings/{id}/export`: the rendered file as an attachment, `X-Export-Partial` saying whether the job still runs. */
export async function sendExport(req: Request, res: Response, ctx: Context): Promise<void> {
  const rendered = await ctx.services.recordings.export(String(req.params.id), credentialsOf(ctx, req.query, false), {
    format: single(req.query.format), lang: single(req.query.lang),
  });
  res.setHeader('Content-Type', rendered.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${rendered.fileName}"`);
  res.setHeader('X-Export-Partial', String(rendered.partial));
  res.status(200).end(rendered.body);
}

/** `/audio` as data (`Accept: application/json`): the URL it would redirect to, and the sealed delivery renditions. */
export const audioAnswerSchema = {
  type: 'object', required: ['url', 'expiresAt', 'media'],
  properties: {
    url: { type: 'string', description: 'The signed URL the redirect would name.' },
    expiresAt: { type: 'string', format: 'date-time' },
    media: {
      type: 'array',
      description: 'Delivery renditions already made and kept: `delivery` (Ogg/Opus), `delivery_caf`, `delivery_mp3`, in that order; '
        + 'empty before the first is made, and for a reader who may not have the delivery audio.',
      items: {
        type: 'object', required: ['rendition', 'format', 'contentType', 'bytes', 'url', 'expiresAt'],
        properties: {
          rendition: { type: 'string', enum: ['delivery', 'delivery_caf', 'delivery_mp3'] },
          format: { type: 'string', enum: ['ogg', 'caf', 'mp3'] }, contentType: { type: 'string' },
          bytes: { type: 'integer', minimum: 1 }, url: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};

/**
 * `GET /v1/recordings/{id}/audio`: a 302 to the signed URL (of the voice track in `lang` with `kind=voice`), or, with
 * `Accept: application/json`, that URL and the sealed delivery renditions as data.
 */
export async function sendAudio(req: Request, res: Response, ctx: Context): Promise<void> {
  const credentials = await mediaCredentialsOf(ctx, req.query);
  const id = String(req.params.id);
  const signed = single(req.query.kind) === 'voice'
    ? await ctx.services.voiceTracks.audioUrl(id, credentials, { lang: single(req.query.lang), format: single(req.query.format) })
    : await ctx.services.recordings.audioUrl(id, credentials, { kind: single(req.query.kind), format: single(req.query.format) });
  const base = requestBaseUrl(req, ctx.config.publicUrl);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Expires-At', signed.expiresAt);
  if (!/\bapplication\/json\b/i.test(req.get('accept') ?? '')) return res.redirect(302, `${base}${signed.path}`);
  const media = (await ctx.services.recordings.sealedMedia(id, credentials)).map(
    ({ path, ...rendition }) => ({ ...rendition, url: `${base}${path}` }),
  );
  res.status(200).json({ url: `${base}${signed.path}`, expiresAt: signed.expiresAt, media });
}

/** `GET /v1/recordings/{id}/job/preview`: the cropping step's media, the owner's only. */
export async function sendJobPreview(req: Request, res: Response, ctx: Context): Promise<void> {
  const file = await ctx.services.recordings.previewFile(String(req.params.id), credentialsOf(ctx, req.query, true));
  res.type(file.contentType);
  res.sendFile(file.path);
}

/** `GET /v1/media/{id}/{file}`: a signed media file (a voice track's `voice-<lang>.*`, or the recording's own). */
export async function sendSignedMedia(req: Request, res: Response, ctx: Context): Promise<void> {
  const signed = { exp: single(req.query.exp), sig: single(req.query.sig) };
  const name = String(req.params.file);
  const file = name.startsWith('voice-')
    ? await ctx.services.voiceTracks.signedMediaFile(String(req.params.id), name, signed)
    : await ctx.services.recordings.signedMediaFile(String(req.params.id), name, signed);
  res.type(file.contentType);
  res.setHeader('Cache-Control', 'private, max-age=300');
  res.sendFile(file.path);
}

/** `GET /v1/recordings/{id}/audio/clip`: WAV of `startS`..`endS`. */
export async function sendClip(req: Request, res: Response, ctx: Context): Promise<void> {
  const wav = await ctx.services.recordings.clip(String(req.params.id), await mediaCredentialsOf(ctx, req.query), {
    startS: single(req.query.startS), endS: single(req.query.endS),
  });
  res.setHeader('Content-Type', 'audio/wav');
  res.status(200).end(wav);
}
