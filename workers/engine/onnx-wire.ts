/**
 * Just enough of the protobuf wire format to edit an ONNX graph without a schema: a message is read as a
 * list of raw fields, and written back from them, so every field this code does not touch (weights,
 * metadata, fields of newer ONNX versions) is copied byte for byte.
 */

export interface WireField {
  field: number;
  /** 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wireType: number;
  /** The value's bytes (for a varint, its encoded bytes). */
  value: Uint8Array;
}

function readVarint(buffer: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  let next = offset;
  for (;;) {
    if (next >= buffer.length) throw new Error('protobuf: truncated varint');
    const byte = buffer[next++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next };
    scale *= 128;
  }
}

function writeVarint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

export function readMessage(buffer: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const key = readVarint(buffer, offset);
    const field = Math.floor(key.value / 8);
    const wireType = key.value % 8;
    offset = key.next;
    let end: number;
    if (wireType === 0) end = readVarint(buffer, offset).next;
    else if (wireType === 1) end = offset + 8;
    else if (wireType === 5) end = offset + 4;
    else if (wireType === 2) {
      const length = readVarint(buffer, offset);
      offset = length.next;
      end = offset + length.value;
    } else throw new Error(`protobuf: unsupported wire type ${wireType} (field ${field})`);
    if (end > buffer.length) throw new Error(`protobuf: field ${field} runs past the end`);
    fields.push({ field, wireType, value: buffer.subarray(offset, end) });
    offset = end;
  }
  return fields;
}

export function writeMessage(fields: WireField[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const { field, wireType, value } of fields) {
    parts.push(writeVarint(field * 8 + wireType));
    if (wireType === 2) parts.push(writeVarint(value.length));
    parts.push(value);
  }
  return Buffer.concat(parts);
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export const bytesField = (field: number, value: Uint8Array): WireField => ({ field, wireType: 2, value });
export const stringField = (field: number, value: string): WireField => bytesField(field, utf8.encode(value));
export const varintField = (field: number, value: number): WireField => ({ field, wireType: 0, value: writeVarint(value) });
export const messageField = (field: number, fields: WireField[]): WireField => bytesField(field, writeMessage(fields));

/** Every string value of `field` (repeated string fields). */
export function strings(fields: WireField[], field: number): string[] {
  return fields.filter((f) => f.field === field && f.wireType === 2).map((f) => fromUtf8.decode(f.value));
}
