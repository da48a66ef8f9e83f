/**
 * Reads a `multipart/form-data` body: small text fields by name, in any order, and at most one file part whose
 * bytes are handed to `onFile` as a stream while they arrive (never held in memory). Every way a body can go wrong
 * — malformed or truncated framing, a connection dropped mid-file, an unknown, repeated or oversized part, a
 * second file — ends in one rejected promise carrying the spec's `invalid_options` naming the part, after the
 * file's consumer has settled (and what it kept has been handed to `discard`). No stream error is ever left
 * without a listener: an `'error'` event nobody hears would end the process.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError, errors } from '../src/core/errors.js';

export interface MultipartFileInfo { fileName: string | null; mimeType: string | null }

export interface MultipartOptions<T> {
  /** Names of the text fields accepted (each at most once). */
  fields: string[];
  /** Called as each field arrives (before a later file part is read): throw to refuse the request early. */
  onField?: (name: string, value: string) => void;
  /** Name of the one file part. */
  file: string;
  /** Consumes the file part's stream; its result is returned. It must read the stream to its end or fail. */
  onFile: (stream: Readable, info: MultipartFileInfo) => Promise<T>;
  /** Undoes what `onFile` kept, when the request fails after the file was consumed. */
  discard?: (kept: T) => Promise<void>;
  maxFieldBytes?: number;
}

export interface MultipartBody<T> { fields: Record<string, string>; file: T | null }

const malformed = (reason: string, field: string) => errors.invalidOptions(`The multipart body ${reason}.`, { field });

export function readMultipart<T>(req: Request, options: MultipartOptions<T>): Promise<MultipartBody<T>> {
  const maxFieldBytes = options.maxFieldBytes ?? 64 * 1024;
  let parser: busboy.Busboy;
  try {
    // One file part: a second one is announced by 'filesLimit' and refused. Fields: one more than accepted, so a
    // repeat reaches the 'field' handler and is refused by name.
    parser = busboy({ headers: req.headers, limits: { files: 1, fields: options.fields.length + 1, fieldSize: maxFieldBytes } });
  } catch {
    return Promise.reject(malformed('has no boundary in its Content-Type', 'Content-Type'));
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let failure: ApiError | null = null;
    let parsed = false;
    /** The part being read, named in the error when the body breaks off inside it. */
    let currentPart = 'body';
    let consumer: Promise<{ ok: true; kept: T } | { ok: false; error: unknown }> | null = null;

    const settle = async () => {
      const outcome = consumer ? await consumer : null;
      if (!failure && outcome && !outcome.ok) {
        failure = outcome.error instanceof ApiError ? outcome.error : malformed(`ended inside the "${options.file}" part`, options.file);
      }
      if (failure) {
        if (outcome?.ok) await options.discard?.(outcome.kept).catch(() => undefined);
        reject(failure);
      } else {
        resolve({ fields, file: outcome?.ok ? outcome.kept : null });
      }
    };
    const fail = (error: ApiError) => {
      if (failure || parsed) return;
      failure = error;
      req.unpipe(parser);
      // Ends a file part being read (its consumer sees the error) and stops parsing the rest.
      parser.destroy();
      void settle();
    };

    parser.on('field', (name, value, info) => {
      currentPart = name;
      if (!options.fields.includes(name)) {
        return fail(errors.invalidOptions(
          `${name} is not a part of this request (${[...options.fields, options.file].join(', ')}).`, { field: name },
        ));
      }
      if (name in fields) return fail(errors.invalidOptions(`${name} is given twice; send it once.`, { field: name }));
      if (info.valueTruncated) return fail(errors.invalidOptions(`${name} is longer than ${maxFieldBytes} bytes.`, { field: name }));
      fields[name] = value;
      try {
        options.onField?.(name, value);
      } catch (error) {
        fail(error instanceof ApiError ? error : errors.invalidOptions(`${name} is invalid.`, { field: name }));
      }
    });
    parser.on('file', (name, stream, info) => {
      // Heard at once, before any await: a truncated body destroys this stream with an error.
      stream.on('error', () => undefined);
      // The parser may still announce parts of a chunk it was reading when the request failed: drain, don't keep.
      if (failure) return void stream.resume();
      if (name !== options.file) {
        stream.resume();
        return fail(errors.invalidOptions(
          `${name} is not a file part of this request; send the file as "${options.file}".`, { field: name },
        ));
      }
      currentPart = name;
      consumer = options.onFile(stream, { fileName: info.filename || null, mimeType: info.mimeType || null }).then(
        (kept) => ({ ok: true as const, kept }),
        (error: unknown) => {
          // A consumer that gives up (an upload over the size limit) stops reading: the parser would wait on it
          // forever, so its refusal ends the request now.
          fail(error instanceof ApiError ? error : malformed(`ended inside the "${options.file}" part`, options.file));
          return { ok: false as const, error };
        },
      );
    });
    parser.on('filesLimit', () => fail(errors.invalidOptions(`Send one "${options.file}" part per request.`, { field: options.file })));
    parser.on('fieldsLimit', () => fail(errors.invalidOptions(`Too many parts: this request takes `
      + `${[...options.fields, options.file].join(', ')}.`, { field: currentPart })));
    parser.on('error', (error: Error) => fail(malformed(`is malformed or ended early (${error.message.toLowerCase()}) in the `
      + `"${currentPart}" part`, currentPart)));
    parser.on('close', () => {
      if (failure) return;
      parsed = true;
      void settle();
    });
    // A client that hangs up mid-body: the parser would wait for the rest forever.
    req.on('error', () => fail(malformed(`was cut off in the "${currentPart}" part (the connection closed)`, currentPart)));
    req.on('close', () => {
      if (!req.complete) fail(malformed(`was cut off in the "${currentPart}" part (the connection closed)`, currentPart));
    });
    req.pipe(parser);
  });
}
