/**
 * `POST /v1/transcriptions` with a file: `multipart/form-data`, the `options` part (JSON) before the `file` part as
 * rest/routes/transcriptions.ts reads them, streamed so the caller sees byte progress. Progress counts the file's
 * bytes as they are handed to the connection (fetch pulls the body as the socket drains), ending at the file's size.
 * A streamed request body needs fetch's `duplex: 'half'` (Node 18+; browsers only over HTTP/2), so progress is a
 * Node feature; the multipart body is the same everywhere.
 */
import type { paths } from '../generated/openapi.js';

export type CreateTranscriptionOptions = NonNullable<NonNullable<paths['/v1/transcriptions']['post']['requestBody']>['content']['multipart/form-data']['options']>;
export type Transcription = paths['/v1/transcriptions']['post']['responses'][201]['content']['application/json'];

export interface UploadProgress {
  /** File bytes sent so far. */
  loaded: number;
  /** The file's size. */
  total: number;
}

/** What an upload reads: a Blob or File (browser or Node), bytes, or (Node) a file path. */
export type UploadSource = Blob | Uint8Array | string;

/** Chunks handed to fetch at most this large, so progress moves in steps a progress bar can show. */
const PROGRESS_CHUNK_BYTES = 64 * 1024;

/** A file path as a Blob read lazily from disk (Node only: the import is dynamic so browser bundles skip it). */
export async function blobOf(source: UploadSource): Promise<{ blob: Blob; name: string | undefined }> {
  if (typeof source === 'string') {
    const [{ openAsBlob }, path] = await Promise.all([import('node:fs'), import('node:path')]);
    return { blob: await openAsBlob(source), name: path.basename(source) };
  }
  // A copy: a view over a SharedArrayBuffer is not a BlobPart.
  if (source instanceof Uint8Array) return { blob: new Blob([source.slice()]), name: undefined };
  return { blob: source, name: 'name' in source && typeof source.name === 'string' ? source.name : undefined };
}

/** A quoted-string parameter as browsers write it in Content-Disposition: quotes and line breaks percent-encoded. */
function quoted(value: string): string {
  return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

export interface MultipartBody {
  contentType: string;
  blob: Blob;
  /** Where the file's bytes start in `blob`. */
  fileStart: number;
  fileSize: number;
}

export function multipartBody(file: Blob, fileName: string, contentType: string, options: CreateTranscriptionOptions | undefined): MultipartBody {
  const boundary = `speechgate-${crypto.randomUUID()}`;
  const optionsPart = options === undefined ? '' : `--${boundary}\r\nContent-Disposition: form-data; name="options"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(options)}\r\n`;
  const head = new TextEncoder().encode(`${optionsPart}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quoted(fileName)}\r\nContent-Type: ${contentType}\r\n\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    blob: new Blob([head, file, `\r\n--${boundary}--\r\n`]),
    fileStart: head.byteLength,
    fileSize: file.size,
  };
}

/** The body as a stream that reports file progress as fetch pulls it; a fresh stream per attempt. */
export function progressStream(body: MultipartBody, onProgress: (progress: UploadProgress) => void): ReadableStream<Uint8Array> {
  const reader = body.blob.stream().getReader();
  let pending: Uint8Array | null = null;
  let sent = 0;
  let reported = -1;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!pending) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        pending = value;
      }
      const chunk: Uint8Array = pending.subarray(0, PROGRESS_CHUNK_BYTES);
      pending = pending.byteLength > PROGRESS_CHUNK_BYTES ? pending.subarray(PROGRESS_CHUNK_BYTES) : null;
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      const loaded = Math.min(body.fileSize, Math.max(0, sent - body.fileStart));
      if (loaded !== reported) {
        reported = loaded;
        onProgress({ loaded, total: body.fileSize });
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
