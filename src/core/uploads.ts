/**
 * Files sent to GraphQL with the multipart request spec (graphql-yoga hands resolvers a WHATWG File): the `Upload`
 * scalar's values, read as the Node stream the services store.
 */
import { Readable } from 'node:stream';
import { errors } from './errors.js';

/** A file argument as a service takes it: its bytes as a stream, its name and type as the client gave them. */
export interface UploadedStream {
  stream: Readable;
  fileName: string | null;
  mimeType: string | null;
}

/** The GraphQL multipart request spec's file. */
interface UploadedFileValue { name: string; type: string; stream(): ReadableStream<Uint8Array> }

/** Reads a WHATWG stream chunk by chunk; yoga's may be a ponyfill that Readable.fromWeb refuses. */
async function* readChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** An `Upload` argument as a stream; a value that is not a multipart file (JSON in the variables) is refused by name. */
export function uploadedStream(value: unknown, field: string): UploadedStream | null {
  if (value === null || value === undefined) return null;
  const file = value as UploadedFileValue;
  if (typeof file.stream !== 'function') throw errors.invalidOptions(`${field} must be sent as a multipart upload.`, { field });
  return { stream: Readable.from(readChunks(file.stream())), fileName: file.name || null, mimeType: file.type || null };
}

/**
 * The uploads a service staged (wrote to storage) in this process, until a create takes one over. A REST upload route
 * hands its staged file to a GraphQL mutation as the `Upload` variable; a GraphQL request cannot make one (its
 * variables are JSON), so a staged upload found here is one this server wrote. Taking it tells the route that the
 * create now owns it (removes it on its own failure; keeps it once stored).
 */
export function stagedUploads<T extends object>() {
  const staged = new WeakSet<T>();
  const has = (value: unknown): value is T => typeof value === 'object' && value !== null && staged.has(value as T);
  return {
    add: (value: T): T => (staged.add(value), value),
    has,
    take: (value: unknown): T | null => (has(value) && staged.delete(value) ? value : null),
  };
}
