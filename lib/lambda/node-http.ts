// `node:http` as the Lambda bundles import it (infra/functions.ts aliases it here). In an ES module,
// `import … from 'node:http'` makes Node build the builtin's ESM facade, which reads every export;
// three of them (WebSocket, CloseEvent, MessageEvent) are getters that load undici, ~30 ms of a
// 70 ms cold start for classes nothing here uses. Required instead, the same module object costs
// ~4 ms. Only the names the bundled code imports are exported: any other fails the build.
import type * as Http from 'node:http';
// Not named `createRequire`: the bundles' banner (infra/functions.ts) declares that name at their top.
import { createRequire as requireFrom } from 'node:module';

const http = requireFrom(import.meta.url)('node:http') as typeof Http;

export default http;
export const { STATUS_CODES } = http;
