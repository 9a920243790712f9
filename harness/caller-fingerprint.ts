// The caller an exchange of the log was sent as, without the token: an HMAC of the bearer token
// under a key of this run alone. A plain hash of a guessable token (a static sandbox token) could be
// found by hashing guesses; under a random key it only tells which exchanges share a caller, which
// is all `check` reads it for. The key lives in the run's private temporary folder (beside the
// exchange log, owner-only, removed with it), so every suite worker of one run shares it.
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const KEY_BYTES = 32;

function runKey(exchangeLogPath: string): Buffer {
  if (!exchangeLogPath) return randomBytes(KEY_BYTES); // no log (preflight): nothing to correlate
  const file = join(dirname(exchangeLogPath), 'caller-key');
  // Written whole under a name of its own, then linked into place: a worker that reads the key never
  // sees it half written, and a link fails (EEXIST) for every worker but the first.
  const mine = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(mine, randomBytes(KEY_BYTES), { mode: 0o600 });
    linkSync(mine, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return randomBytes(KEY_BYTES); // the folder is gone
  } finally {
    rmSync(mine, { force: true });
  }
  return readFileSync(file);
}

/** `token:` and 16 hex digits, the same for one token throughout one run and unrelated across runs. */
export function callerFingerprinter(exchangeLogPath: string): (token: string) => string {
  let key: Buffer | undefined;
  // A run sends most requests under a handful of tokens: each is hashed once (an HMAC per exchange
  // was about 0.1 s of a host run's CPU). Bounded, as the forged tokens of auth-ordering are many.
  const known = new Map<string, string>();
  return (token) => {
    const cached = known.get(token);
    if (cached !== undefined) return cached;
    key ??= runKey(exchangeLogPath);
    const fingerprint = `token:${createHmac('sha256', key).update(token).digest('hex').slice(0, 16)}`;
    if (known.size >= 64) known.clear();
    known.set(token, fingerprint);
    return fingerprint;
  };
}
