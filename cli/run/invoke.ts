// `invoke`: the deployed sweep function, invoked, its report printed.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { ReportSummary } from '../../lib/report/summary.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { outputMode, printReport, str } from './shared.js';

export const runInvokeCommand: CommandRun = async (v) => {
  const name = str(v['function']);
  if (!name) throw new CliError('invoke: pass --function <name> (the stack output SweepFunctionName)');
  const region = str(v['region']) ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'];
  if (!region) throw new CliError('no AWS region; pass --region or set AWS_REGION');
  const endpoint = str(v['endpoint-url']);
  const lambda = new LambdaClient({ region, ...(endpoint ? { endpoint } : {}) });
  // Only --dry-run says anything about dryRun: otherwise the deployed setting stands (a stack deployed dry stays dry).
  const payload = v['dry-run'] === true ? { dryRun: true } : {};
  const response = await lambda.send(
    new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }),
  );
  const body = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
  if (response.FunctionError) throw new CliError(`the sweep function failed: ${body}`, EXIT.error);
  return printReport(JSON.parse(body) as ReportSummary, outputMode(v));
};
