// Errors of the harness itself (the run could not be made). Kept apart from ConformanceFailure:
// these end a run with exit 2 and never count as a check's verdict.

export type HarnessErrorCode =
  | 'CONF_MISSING_VARIABLE'
  | 'CONF_INVALID_VALUE'
  | 'CONF_UNKNOWN_TOPIC'
  | 'CONF_UNKNOWN_VARIABLE'
  | 'TARGET_MISCONFIGURED'
  | 'CONF_ENV_FILE'
  | 'TARGET_UNREACHABLE'
  | 'TOKEN_ENDPOINT_UNREACHABLE'
  | 'CREDENTIALS_REFUSED'
  | 'SAFETY_REFUSED'
  | 'REQUEST_BUDGET_EXHAUSTED'
  | 'TARGET_PACING'
  | 'SECRET_LEAK_BLOCKED'
  | 'REPORT_WRITE_FAILED'
  // `check` and `proxy` (traffic/): recorded traffic that cannot be judged, or a proxy that cannot start.
  | 'TRAFFIC_UNREADABLE'
  | 'TRAFFIC_UNRECOGNIZED'
  | 'TRAFFIC_TRUNCATED'
  | 'TRAFFIC_NO_API_EXCHANGE'
  | 'TRAFFIC_NO_RESPONSE'
  | 'PROXY_FAILED';

export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  constructor(
    readonly code: HarnessErrorCode,
    message: string,
  ) {
    super(message);
  }
}
