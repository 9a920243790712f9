// Reads every traffic file given to `check` as one stream of exchanges in time order. Each file is
// told by its content: compressed or not (source.ts), then HAR or JSON lines by its first line (a
// whole exchange on it is JSON lines; anything else starting with `{` is read as HAR); the rest is
// refused. Nothing holds more than a bounded window of exchanges.
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { HarnessError } from '../harness/errors.ts';
import { readHar, type HarCounts } from './har.ts';
import { readJsonl, type JsonlCounts } from './jsonl.ts';
import type { TrafficExchange } from './model.ts';
import { compressedReadError, openTraffic, type Compression } from './source.ts';

/** The exchanges of the input (an async stream of batches in order, read once) and facts about it worth a note. */
export interface TrafficStream {
  batches: AsyncIterable<TrafficExchange[]>;
  /** Filled as the files are read: complete once `batches` has ended. */
  notes: string[];
}

export interface TrafficInput {
  exchanges: TrafficExchange[];
  notes: string[];
}

type Format = 'har' | 'jsonl';

interface OpenFile {
  name: string;
  format: Format;
  compression: Compression;
  chunks: AsyncIterable<Buffer>;
}

const HEAD_BYTES = 1024 * 1024;
/** How far back in a HAR file an entry may have started and still be put in its place. */
export const REORDER_WINDOW = 4096;

function firstLineIsExchange(text: string): boolean {
  const line = text.trimStart().split('\n')[0] ?? '';
  try {
    const value = JSON.parse(line) as { request?: unknown };
    return !!value && typeof value === 'object' && typeof value.request === 'object';
  } catch {
    return false;
  }
}

/** A stream's chunks with a read error turned into the one line `check` prints. */
async function* guarded(stream: Readable, reader: AsyncIterator<unknown>, start: Buffer[], name: string, compression: Compression): AsyncGenerator<Buffer> {
  try {
    yield* start;
    for (let next = await reader.next(); !next.done; next = await reader.next()) yield next.value as Buffer;
  } catch (error) {
    throw compressedReadError(error, name, compression) ?? error;
  } finally {
    stream.destroy();
  }
}

/** Opens one file and tells its format from its first (decompressed) megabyte. */
async function openFile(path: string): Promise<OpenFile> {
  const name = basename(path);
  const { stream, compression } = await openTraffic(path, name);
  const head: Buffer[] = [];
  let size = 0;
  const reader = stream[Symbol.asyncIterator]();
  try {
    while (size < HEAD_BYTES) {
      const next = await reader.next();
      if (next.done) break;
      head.push(next.value as Buffer);
      size += (next.value as Buffer).length;
      if ((next.value as Buffer).includes(10) && Buffer.concat(head).toString('utf8').trim() !== '') break;
    }
  } catch (error) {
    stream.destroy();
    throw compressedReadError(error, name, compression) ?? error;
  }
  const start = Buffer.concat(head).subarray(0, HEAD_BYTES).toString('utf8');
  const chunks = guarded(stream, reader, head, name, compression);
  const refuse = (message: string) => {
    stream.destroy();
    return new HarnessError('TRAFFIC_UNRECOGNIZED', message);
  };
  if (start.trim() === '') throw refuse(`${name} is empty; give a HAR 1.2 file or a run's exchanges.jsonl`);
  if (firstLineIsExchange(start)) return { name, format: 'jsonl', compression, chunks };
  if (start.trimStart().startsWith('{')) return { name, format: 'har', compression, chunks };
  throw refuse(`${name} is neither a HAR 1.2 file nor an exchanges.jsonl (it does not start with a JSON object)`);
}

/** One file's exchanges in batches (a HAR entry is a batch of its own), its notes pushed when it ends. */
async function* exchangesOf(file: OpenFile, notes: string[]): AsyncGenerator<TrafficExchange[]> {
  const how = file.compression === 'none' ? '' : ` (${file.compression}-compressed)`;
  if (file.format === 'jsonl') {
    const counts: JsonlCounts = { transportFailures: 0 };
    yield* readJsonl(file.chunks, file.name, counts);
    if (how) notes.push(`${file.name} was read${how}`);
    if (counts.transportFailures > 0) notes.push(`${file.name}: ${counts.transportFailures} exchange(s) recorded a transport failure instead of an answer and were not judged`);
  } else {
    const counts: HarCounts = { unanswered: 0 };
    for await (const ex of readHar(file.chunks, file.name, counts)) yield [ex];
    if (how) notes.push(`${file.name} was read${how}`);
    if (counts.unanswered > 0) notes.push(`${file.name}: ${counts.unanswered} entr${counts.unanswered === 1 ? 'y' : 'ies'} with status 0 (no answer recorded) were not judged`);
  }
}

interface Timed {
  ex: TrafficExchange;
  time: number;
  file: number;
  seq: number;
}

const before = (a: Timed, b: Timed) => a.time - b.time || a.file - b.file || a.seq - b.seq;

/** A binary min-heap of exchanges by start time, then file and entry order. */
class TimeHeap {
  private readonly items: Timed[] = [];
  get size(): number {
    return this.items.length;
  }
  push(item: Timed): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (before(a[parent]!, a[i]!) <= 0) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }
  pop(): Timed | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!) < 0) m = l;
        if (r < a.length && before(a[r]!, a[m]!) < 0) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * HAR entries in the order they started (exporters need not keep it, and several files may split
 * one session): each file is put in order within a window of REORDER_WINDOW entries, and the files
 * are merged by start time. An entry without a time keeps its place after the one before it; one
 * that started before an entry already passed on is judged where it stands, and counted in a note.
 */
async function* inTimeOrder(files: AsyncIterator<TrafficExchange>[], notes: string[]): AsyncGenerator<TrafficExchange> {
  const heap = new TimeHeap();
  const lastTime = files.map(() => -Infinity);
  const seq = files.map(() => 0);
  const pending = files.map(() => 0);
  const open = files.map(() => true);
  let late = 0;
  let emitted = -Infinity;
  const pull = async (f: number) => {
    const next = await files[f]!.next();
    if (next.done) {
      open[f] = false;
      return;
    }
    const time = next.value.startedAt ?? lastTime[f]!;
    lastTime[f] = time;
    pending[f]! += 1;
    heap.push({ ex: next.value, time, file: f, seq: seq[f]!++ });
  };
  // Every open file keeps at least one entry in the heap (so the smallest is known) and at most a window.
  for (let f = 0; f < files.length; f++) await pull(f);
  while (heap.size > 0) {
    for (let f = 0; f < files.length; f++) while (open[f] && pending[f]! < REORDER_WINDOW) await pull(f);
    const top = heap.pop()!;
    pending[top.file]! -= 1;
    if (top.time < emitted) late += 1;
    else emitted = top.time;
    yield top.ex;
    if (open[top.file] && pending[top.file] === 0) await pull(top.file);
  }
  if (late > 0) notes.push(`${late} HAR entr${late === 1 ? 'y' : 'ies'} started more than ${REORDER_WINDOW} entries before ${late === 1 ? 'its' : 'their'} place in the file and ${late === 1 ? 'was' : 'were'} judged where ${late === 1 ? 'it stands' : 'they stand'}`);
}

/** The files' exchanges in time order, numbered as judged. */
export async function streamTraffic(paths: readonly string[]): Promise<TrafficStream> {
  const files: OpenFile[] = [];
  for (const path of paths) files.push(await openFile(path));
  const notes: string[] = [];
  const each = files.map((f) => exchangesOf(f, notes));
  // A run's log is in check order (each check's lines written as it ends), older logs have no times:
  // its order is the order given. Only HAR files are put in time order.
  const ordered = files.every((f) => f.format === 'har')
    ? (async function* () {
        for await (const ex of inTimeOrder(each.map(oneByOne), notes)) yield [ex];
      })()
    : (async function* () {
        for (const one of each) yield* one;
      })();
  const numbered = async function* () {
    let index = 0;
    for await (const batch of ordered) {
      for (const ex of batch) ex.index = index++;
      yield batch;
    }
  };
  return { batches: numbered(), notes };
}

async function* oneByOne(batches: AsyncIterable<TrafficExchange[]>): AsyncGenerator<TrafficExchange> {
  for await (const batch of batches) yield* batch;
}

/** Every exchange of the input at once (for small traffic: tests, the matrix). */
export async function readTraffic(paths: readonly string[]): Promise<TrafficInput> {
  const input = await streamTraffic(paths);
  const exchanges: TrafficExchange[] = [];
  for await (const batch of input.batches) for (const ex of batch) exchanges.push(ex);
  return { exchanges, notes: input.notes };
}
