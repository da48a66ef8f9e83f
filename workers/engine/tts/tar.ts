/**
 * A streaming reader of tar archives (ustar, with pax `path` records and GNU long names), enough for npm's
 * package tarballs: each entry's bytes go to the sink its callback returns, or are skipped; nothing is held
 * beyond one chunk of the input.
 */
import { createWriteStream } from 'node:fs';

export interface TarEntry {
  /** Path inside the archive ('package/build/tokenizer.json'). */
  name: string;
  size: number;
  /** 'file', 'directory' or 'other'. */
  type: 'file' | 'directory' | 'other';
}

/** Where one entry's bytes go. */
export interface TarSink {
  write(chunk: Buffer): Promise<void> | void;
  end(): Promise<void> | void;
}

/** A sink writing an entry to `file` (waiting on the stream's drain), telling `onChunk` of each piece first. */
export function fileSink(file: string, onChunk?: (chunk: Buffer) => void): TarSink {
  const out = createWriteStream(file);
  return {
    write: async (chunk) => {
      onChunk?.(chunk);
      if (!out.write(chunk)) await new Promise<void>((done) => out.once('drain', () => done()));
    },
    end: () => new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done()))),
  };
}

const BLOCK = 512;

/** Reads exact byte counts from an async stream of buffers. */
class ByteReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(n: number): Promise<void> {
    while (this.length < n) {
      const { value, done } = await this.iterator.next();
      if (done) throw new Error('the archive ends in the middle of an entry (truncated download?)');
      this.chunks.push(value);
      this.length += value.length;
    }
  }

  /** Exactly `n` bytes, or null when the stream ended cleanly before any of them. */
  async take(n: number): Promise<Buffer | null> {
    if (this.length === 0) {
      const { value, done } = await this.iterator.next();
      if (done) return null;
      this.chunks.push(value);
      this.length += value.length;
    }
    await this.fill(n);
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.length = all.length - n;
    return all.subarray(0, n);
  }

  /** `n` bytes handed on as they arrive. */
  async *pieces(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.length === 0) await this.fill(1);
      const head = this.chunks[0];
      const piece = head.subarray(0, Math.min(left, head.length));
      if (piece.length === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(piece.length);
      this.length -= piece.length;
      left -= piece.length;
      yield piece;
    }
  }
}

function text(header: Buffer, start: number, length: number): string {
  const field = header.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

function size(header: Buffer): number {
  // Base-256 (GNU) when the high bit is set, else octal.
  if (header[124] & 0x80) return header.subarray(125, 136).reduce((value, byte) => value * 256 + byte, 0);
  return parseInt(text(header, 124, 12).trim() || '0', 8);
}

function checksumOk(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
  return sum === parseInt(text(header, 148, 8).trim(), 8);
}

/** The `path` of a pax extended header ("<len> path=<value>\n" records). */
function paxPath(body: Buffer): string | null {
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(32, at);
    if (space === -1) break;
    const length = parseInt(body.subarray(at, space).toString('utf8'), 10);
    if (!length) break;
    const record = body.subarray(space + 1, at + length - 1).toString('utf8');
    if (record.startsWith('path=')) return record.slice(5);
    at += length;
  }
  return null;
}

/** Reads the archive, calling `onEntry` for each entry; the sink it returns (if any) gets that entry's bytes. */
export async function readTar(
  source: AsyncIterable<Buffer>, onEntry: (entry: TarEntry) => TarSink | null | Promise<TarSink | null>,
): Promise<void> {
  const reader = new ByteReader(source);
  let longName: string | null = null;
  for (;;) {
    const header = await reader.take(BLOCK);
    if (!header || header.every((byte) => byte === 0)) return;
    if (!checksumOk(header)) throw new Error('not a tar archive (a header checksum is wrong)');
    const bytes = size(header);
    const padded = Math.ceil(bytes / BLOCK) * BLOCK;
    const flag = String.fromCharCode(header[156] || 48);
    if (flag === 'x' || flag === 'L') {
      const body = (await reader.take(padded))!.subarray(0, bytes);
      longName = flag === 'x' ? paxPath(body) : text(body, 0, body.length);
      continue;
    }
    const prefix = text(header, 257, 6).startsWith('ustar') ? text(header, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    longName = null;
    const type = flag === '0' || flag === '7' ? 'file' : flag === '5' ? 'directory' : 'other';
    const sink = type === 'file' ? await onEntry({ name, size: bytes, type }) : null;
    for await (const piece of reader.pieces(bytes)) if (sink) await sink.write(piece);
    if (sink) await sink.end();
    if (padded > bytes) await reader.take(padded - bytes);
  }
}
