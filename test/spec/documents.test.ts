// spec/documents.ts: a checkout parses each YAML document once per content and keeps it in
// node_modules/.cache; what it reads back must be the document itself, and a damaged cache file
// is parsed again, never trusted.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readSpecDocument } from '../../spec/documents.ts';

const SPEC = new URL('../../spec/', import.meta.url);
const parser = `yaml@${(JSON.parse(readFileSync(new URL('../../node_modules/yaml/package.json', import.meta.url), 'utf8')) as { version: string }).version}`;
const cacheFileOf = (text: string) => new URL(`../../node_modules/.cache/conformance-spec/${createHash('sha256').update(`${parser}\n${text}`).digest('hex')}.json`, import.meta.url);

describe('spec documents read from a checkout', () => {
  it.each(['openapi.yaml', 'requirements.yaml'])('%s: the cached parse is the YAML parsed, and a damaged cache file is parsed again', (name) => {
    const text = readFileSync(new URL(name, SPEC), 'utf8');
    const expected = parse(text) as unknown;
    expect(readSpecDocument(name)).toEqual(expected);
    // Now cached: read back from the file the first read wrote.
    expect(JSON.parse(readFileSync(cacheFileOf(text), 'utf8'))).toEqual(expected);
    expect(readSpecDocument(name)).toEqual(expected);
    writeFileSync(cacheFileOf(text), '{"cut off');
    expect(readSpecDocument(name)).toEqual(expected);
    expect(JSON.parse(readFileSync(cacheFileOf(text), 'utf8'))).toEqual(expected);
  });
});
