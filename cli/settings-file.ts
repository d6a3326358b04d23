// A settings file (`simulate --settings FILE`, `--compare A B`): JSON or YAML holding the settings by
// their names (docs/settings.md), as the app's `settings` context key holds them. It is the whole
// configuration of a deployment: what it does not say takes the default.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { parseSettings, settingsProblems, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { CliError, EXIT } from './exit-codes.js';

export async function readSettingsFile(path: string): Promise<Settings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `${path}: cannot read the settings file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT.usage,
    );
  }
  let input: unknown;
  try {
    // JSON is YAML: one parser reads both.
    input = parse(text) as unknown;
  } catch (error) {
    throw new CliError(
      `${path}: not JSON or YAML: ${error instanceof Error ? error.message : String(error)}`,
      EXIT.usage,
    );
  }
  const problems = settingsProblems(input ?? {});
  if (problems.length > 0) throw new CliError(`${path}: ${problems.join('; ')}`, EXIT.usage);
  return parseSettings(input ?? {});
}
