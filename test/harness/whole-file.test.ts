// The files a script waits for are replaced whole, never truncated and refilled in place: a reader
// polling for the file (as test/harness/stopping.test.ts and users' scripts do) once saw an empty
// --pid-file. A new inode is what a rename leaves; an in-place write keeps the old one.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePidFile } from '../../harness/lifetime.ts';
import { writeWholeFile } from '../../harness/whole-file.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'conformance-whole-'));

describe('files a script waits for are written whole', () => {
  it('replaces an existing file by a rename (a new inode), leaving no temporary beside it', () => {
    const dir = fresh();
    const path = join(dir, 'serve.env');
    writeFileSync(path, 'old\n', { mode: 0o644 });
    const before = statSync(path).ino;
    writeWholeFile(path, 'CONFORMANCE_BASE_URL=http://127.0.0.1:1\n', 0o600);
    expect(statSync(path).ino).not.toBe(before);
    expect(readFileSync(path, 'utf8')).toBe('CONFORMANCE_BASE_URL=http://127.0.0.1:1\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['serve.env']);
  });

  it('the pid file too, and it is removed at the end while it names this process', () => {
    const dir = fresh();
    const path = join(dir, 'serve.pid');
    writeFileSync(path, '1\n');
    const before = statSync(path).ino;
    const remove = writePidFile(path);
    expect(statSync(path).ino).not.toBe(before);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
    remove();
    expect(readdirSync(dir)).toEqual([]);
  });
});
