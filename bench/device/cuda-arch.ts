/**
 * `tsx bench/device/cuda-arch.ts <provider.so> <sm>`: the CUDA provider library with the machine code of every other
 * GPU architecture zeroed, for shipping to a device machine that takes 64 MiB per call.
 *
 * `libonnxruntime_providers_cuda.so` (230 MB) is mostly its `.nv_fatbin` section: one cubin per kernel for each of
 * sm_75, 80, 86, 89, 90 and 120, no PTX. The CUDA driver loads the cubin of the device's architecture and reads no
 * other, so the others' bytes can be zeros: the file keeps its layout and size, and compresses from 165 MB (xz) to
 * 38 MB. Checked on an H100 (sm_90): the provider loads and its kernels give the CPU's results.
 *
 * Fatbin layout (as CUDA's tools write it): containers of a 16-byte header (magic 0xBA55ED50, version u16, header
 * size u16, size u64) followed by entries, each a header (kind u16 — 1 PTX, 2 cubin —, u16, header size u32, payload
 * size u64, …, architecture u32 at byte 28) and its payload.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const FATBIN_MAGIC = 0xba55ed50;
const CUBIN = 2;

/** File offset and size of the ELF64 section `name`. */
function section(file: Buffer, name: string): { offset: number; size: number } {
  const headers = Number(file.readBigUInt64LE(0x28));
  const entrySize = file.readUInt16LE(0x3a);
  const count = file.readUInt16LE(0x3c);
  const names = headers + file.readUInt16LE(0x3e) * entrySize;
  const namesOffset = Number(file.readBigUInt64LE(names + 0x18));
  for (let i = 0; i < count; i++) {
    const at = headers + i * entrySize;
    const nameAt = namesOffset + file.readUInt32LE(at);
    if (file.toString('latin1', nameAt, file.indexOf(0, nameAt)) === name) {
      return { offset: Number(file.readBigUInt64LE(at + 0x18)), size: Number(file.readBigUInt64LE(at + 0x20)) };
    }
  }
  throw new Error(`no ${name} section`);
}

/** Zeroes, in place, the payload of every cubin not built for `keep`; returns bytes zeroed and kept per architecture. */
export function keepOnlyArchitecture(file: Buffer, keep: number): Map<number, number> {
  const { offset, size } = section(file, '.nv_fatbin');
  const bytes = new Map<number, number>();
  let at = offset;
  while (at + 16 <= offset + size) {
    if (file.readUInt32LE(at) !== FATBIN_MAGIC) {
      at += 8; // containers are 8-byte aligned
      continue;
    }
    const headerSize = file.readUInt16LE(at + 6);
    const end = at + headerSize + Number(file.readBigUInt64LE(at + 8));
    for (let entry = at + headerSize; entry < end; ) {
      const kind = file.readUInt16LE(entry);
      const entryHeader = file.readUInt32LE(entry + 4);
      const payload = Number(file.readBigUInt64LE(entry + 8));
      const architecture = file.readUInt32LE(entry + 28);
      bytes.set(architecture, (bytes.get(architecture) ?? 0) + payload);
      if (kind === CUBIN && architecture !== keep) file.fill(0, entry + entryHeader, entry + entryHeader + payload);
      entry += entryHeader + payload;
    }
    at = end;
  }
  if (!bytes.has(keep)) throw new Error(`no cubin for sm_${keep} (architectures: ${[...bytes.keys()].join(', ')})`);
  return bytes;
}

const [input, sm] = process.argv.slice(2);
if (!input || !sm) {
  console.error('usage: tsx bench/device/cuda-arch.ts <libonnxruntime_providers_cuda.so> <sm, e.g. 90>');
  process.exit(2);
}
const file = readFileSync(input);
const bytes = keepOnlyArchitecture(file, Number(sm));
writeFileSync(input, file);
console.log([...bytes].map(([arch, size]) => `sm_${arch} ${(size / 1e6).toFixed(1)} MB${arch === Number(sm) ? ' (kept)' : ''}`).join(', '));
