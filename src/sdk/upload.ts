/**
 * `POST /v1/transcriptions` with a file: `multipart/form-data`, the `options` part (JSON) before the `file` part as
 * rest/routes/transcriptions.ts reads them, streamed so the caller sees byte progress. Progress counts the file's
 * bytes as they are handed to the connection, ending at the file's size. Two ways to send the same multipart body:
 *   - Node: fetch with a streamed body (`duplex: 'half'`), counted as fetch pulls it while the socket drains;
 *   - a browser: XMLHttpRequest, counted by `xhr.upload.onprogress` (a browser streams a fetch body only over
 *     HTTP/2, and a self-hosted server is often reached over HTTP/1.1), wrapped to look like a fetch that resolves
 *     a Response, so the retry rules (retry.ts) treat both alike.
 */
import type { paths } from '../generated/openapi.js';

export type CreateTranscriptionOptions = NonNullable<
  NonNullable<paths['/v1/transcriptions']['post']['requestBody']>['content']['multipart/form-data']['options']
>;
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

/**
 * Node's modules, imported by a name in a variable: a bundler resolves and bundles a literal `import('node:fs')`,
 * and a browser bundle (esbuild `platform: 'browser'`, Vite, webpack) has no `node:fs` to find. The comments keep
 * Vite and webpack from warning about the expression.
 */
const NODE_FS = 'node:fs';
const NODE_PATH = 'node:path';
const importNode = <T>(specifier: string): Promise<T> => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<T>;

/** A file path as a Blob read lazily from disk (Node only). */
export async function blobOf(source: UploadSource): Promise<{ blob: Blob; name: string | undefined }> {
  if (typeof source === 'string') {
    const [{ openAsBlob }, path] = await Promise.all([
      importNode<typeof import('node:fs')>(NODE_FS), importNode<typeof import('node:path')>(NODE_PATH),
    ]);
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

export function multipartBody(
  file: Blob, fileName: string, contentType: string, options: CreateTranscriptionOptions | undefined,
): MultipartBody {
  const boundary = `speechgate-${crypto.randomUUID()}`;
  const optionsPart = options === undefined ? '' : `--${boundary}\r\nContent-Disposition: form-data; name="options"\r\nContent-Type: `
    + `application/json\r\n\r\n${JSON.stringify(options)}\r\n`;
  const head = new TextEncoder().encode(`${optionsPart}--${boundary}\r\nContent-Disposition: form-data; name="file"; `
    + `filename=${quoted(fileName)}\r\nContent-Type: ${contentType}\r\n\r\n`);
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
  /** The file's next bytes, or null at its end. */
  const nextRead = async (): Promise<Uint8Array | null> => {
    const { done, value } = await reader.read();
    return done ? null : (value as Uint8Array);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const current = pending ?? (await nextRead());
      if (!current) {
        controller.close();
        return;
      }
      const chunk = current.subarray(0, PROGRESS_CHUNK_BYTES);
      pending = current.byteLength > PROGRESS_CHUNK_BYTES ? current.subarray(PROGRESS_CHUNK_BYTES) : null;
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      const progress = fileProgress(body, sent);
      if (progress.loaded !== reported) {
        reported = progress.loaded;
        onProgress(progress);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** File bytes out of body bytes sent: the multipart head before the file and the closing boundary after it are not counted. */
function fileProgress(body: MultipartBody, sent: number): UploadProgress {
  return { loaded: Math.min(body.fileSize, Math.max(0, sent - body.fileStart)), total: body.fileSize };
}

/**
 * The part of a browser's XMLHttpRequest the upload uses, declared here: the SDK compiles (and its users type-check)
 * without the DOM library, and Node has no XMLHttpRequest.
 */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
  abort(): void;
  getAllResponseHeaders(): string;
  responseType: string;
  readonly response: unknown;
  readonly status: number;
  readonly statusText: string;
  upload: { onprogress: ((event: { loaded: number }) => void) | null; onload: (() => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  ontimeout: (() => void) | null;
  onabort: (() => void) | null;
}

/**
 * Whether uploads go through XMLHttpRequest: in a browser (it exists there and not in Node), unless the caller gave
 * its own `fetch` (a test double, an instrumented fetch: the caller asked for every request to go through it).
 */
export function usesXhr(customFetch: unknown): boolean {
  return customFetch === undefined && (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest !== undefined;
}

/** Statuses whose Response must have no body (the constructor throws otherwise). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The answer's headers as `getAllResponseHeaders()` lists them (`name: value` lines). */
function responseHeaders(xhr: Xhr): Headers {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      // A header the Headers class refuses (an odd name from a proxy): the SDK reads none it could be.
    }
  }
  return headers;
}

/**
 * One attempt of the upload with XMLHttpRequest, as fetch would make it: resolves a Response for any answer,
 * rejects (as fetch does) when none came (a TypeError) or the signal aborted it (the signal's reason). Progress is
 * reported as the browser hands the body to the connection, in file bytes, once per change.
 */
export function sendWithXhr(
  url: string, headers: Record<string, string>, body: MultipartBody, onProgress: (progress: UploadProgress) => void, signal?: AbortSignal,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const Request = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
    if (!Request) {
      reject(new TypeError('XMLHttpRequest is not available here.'));
      return;
    }
    const xhr = new Request();
    let reported = -1;
    const report = (sent: number) => {
      const progress = fileProgress(body, sent);
      if (progress.loaded === reported) return;
      reported = progress.loaded;
      onProgress(progress);
    };
    const abort = () => xhr.abort();
    const settle = () => signal?.removeEventListener('abort', abort);
    xhr.open('POST', url);
    xhr.responseType = 'arraybuffer';
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => report(event.loaded);
    // The last progress event may come before all of the body left; the upload's end means every byte did.
    xhr.upload.onload = () => report(body.blob.size);
    xhr.onload = () => {
      settle();
      const status = xhr.status;
      resolve(new Response(NULL_BODY_STATUSES.has(status) ? null : (xhr.response as ArrayBuffer), {
        status, statusText: xhr.statusText, headers: responseHeaders(xhr),
      }));
    };
    xhr.onerror = () => {
      settle();
      reject(new TypeError('XMLHttpRequest failed: no answer from the server.'));
    };
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => {
      settle();
      reject(signal?.reason ?? new DOMException('The upload was aborted.', 'AbortError'));
    };
    signal?.addEventListener('abort', abort, { once: true });
    xhr.send(body.blob);
  });
}
