// The embedded reference in a process of its own, so that load generators measured against it
// (client-throughput.ts) do not share its event loop. Sends its address over IPC, then waits.
import { startReference } from '../reference/index.ts';
import type { ReferenceAddress } from './client-throughput.ts';

const reference = await startReference();
const address: ReferenceAddress = {
  baseUrl: reference.baseUrl,
  tokenUrl: reference.tokenUrl,
  audience: reference.audience,
  primary: reference.apps.primary,
  businessId: reference.fixtures.businessId!,
};
process.send?.(address);
process.on('disconnect', () => {
  void reference.close().then(() => process.exit(0));
});
