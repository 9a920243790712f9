// The bytes of one traffic file as a stream, decompressed when its content says it is compressed:
// gzip by its magic bytes 1f 8b, zstd by 28 b5 2f fd (read where node:zlib has a zstd decoder,
// refused with a clear line where it has none). The file's name plays no part.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { HarnessError } from '../harness/errors.ts';

export type Compression = 'none' | 'gzip' | 'zstd';

/** Bytes read (and decompressed) at a time. */
const READ_CHUNK = 256 * 1024;

const GZIP = [0x1f, 0x8b];
const ZSTD = [0x28, 0xb5, 0x2f, 0xfd];
const startsWith = (bytes: Buffer, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/** Node's zstd decoder (node:zlib from Node 22.15 and 23.8), when this Node has one. */
const zstdDecompress = (zlib as unknown as { createZstdDecompress?: (options?: { chunkSize?: number }) => NodeJS.ReadWriteStream }).createZstdDecompress;

export const zstdSupported = () => typeof zstdDecompress === 'function';

async function magicOf(path: string, name: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown';
    throw new HarnessError('TRAFFIC_UNREADABLE', `cannot read ${path} (${code})`);
  }
  try {
    const buffer = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buffer, 0, 4, 0);
    return buffer.subarray(0, bytesRead);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown';
    throw new HarnessError('TRAFFIC_UNREADABLE', `cannot read ${name} (${code})`);
  } finally {
    await handle.close();
  }
}

export async function compressionOf(path: string, name: string): Promise<Compression> {
  const magic = await magicOf(path, name);
  if (startsWith(magic, GZIP)) return 'gzip';
  if (magic.length >= 4 && startsWith(magic, ZSTD)) return 'zstd';
  return 'none';
}

/** The decompressed bytes of a file; a corrupt or cut compressed stream ends in one clear error. */
export async function openTraffic(path: string, name: string): Promise<{ stream: Readable; compression: Compression }> {
  const compression = await compressionOf(path, name);
  const file = createReadStream(path, { highWaterMark: READ_CHUNK });
  if (compression === 'none') return { stream: file, compression };
  if (compression === 'zstd' && !zstdDecompress) {
    file.destroy();
    throw new HarnessError('TRAFFIC_UNREADABLE', `${name} is zstd-compressed, which this Node (${process.version}) cannot read natively (Node 22.15 or later can); decompress it first (zstd -d) or give it gzip-compressed`);
  }
  // Decompressed in chunks as large as the file's reads (zlib's default is 16 KiB): each chunk is a
  // batch of lines for the judge (a gzipped 1 GiB log: 27.0 s CPU with 16 KiB chunks, 23.7 s with these).
  const options = { chunkSize: READ_CHUNK };
  const inflate = (compression === 'gzip' ? zlib.createGunzip(options) : zstdDecompress!(options)) as unknown as Readable & NodeJS.WritableStream;
  file.on('error', (error) => inflate.destroy(error));
  file.pipe(inflate);
  return { stream: inflate, compression };
}

/** A decompression failure as the one line `check` prints. */
export function compressedReadError(error: unknown, name: string, compression: Compression): HarnessError | undefined {
  if (error instanceof HarnessError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (compression === 'none') {
    return code ? new HarnessError('TRAFFIC_UNREADABLE', `cannot read ${name} (${code})`) : undefined;
  }
  if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(String((error as Error)?.message))) {
    return new HarnessError('TRAFFIC_TRUNCATED', `${name} ends in the middle of its ${compression} stream: the file is truncated`);
  }
  return new HarnessError('TRAFFIC_UNREADABLE', `${name} is not a valid ${compression} stream (${code || 'corrupt data'})`);
}
