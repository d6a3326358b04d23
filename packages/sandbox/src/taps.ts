// What the sandbox tells whoever listens about the output and the secrets of the world it runs, on
// node:diagnostics_channel (nothing is built when nobody subscribes): every function invocation's
// log lines, which stay in the function host and never reach the process's stdout, and every
// credential it hands out. The test run's secrets check (test/support/secrets-in-logs.setup.ts)
// subscribes, to read those logs and to know the issued secrets exactly.
import { channel } from 'node:diagnostics_channel';

export const FUNCTION_LOGS_CHANNEL = 'ec2-node-reconciler:sandbox:function-logs';
export const CREDENTIAL_ISSUED_CHANNEL = 'ec2-node-reconciler:sandbox:credential-issued';

export interface FunctionLogsMessage {
  readonly functionName: string;
  readonly lines: readonly string[];
}

export interface CredentialIssuedMessage {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

const functionLogs = channel(FUNCTION_LOGS_CHANNEL);
const credentialIssued = channel(CREDENTIAL_ISSUED_CHANNEL);

/** One invocation's log lines (its stream in CloudWatch Logs, in Lambda). */
export function publishFunctionLogs(message: FunctionLogsMessage): void {
  if (functionLogs.hasSubscribers) functionLogs.publish(message);
}

/** A credential pair the sandbox made for a role session or an operator. */
export function publishCredentialIssued(message: CredentialIssuedMessage): void {
  if (credentialIssued.hasSubscribers) credentialIssued.publish(message);
}
