// ec2-node-reconciler: the command line.
import { parseArgs } from 'node:util';
import { errorText } from '../support/errors.js';
import { COMMANDS } from './commands.js';
import { CliError, EXIT } from './exit-codes.js';

const EXIT_HELP = `Exit codes:
  0  done; every expectation held
  1  ran, but something needs attention (failed expectation or action, pods left on a drained node)
  2  bad input (unknown flag, malformed event or scenario: the field is named); nothing was changed
  3  could not run (no cluster access, no credentials, an API error)`;

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'ec2-node-reconciler — keeps EC2 machines and Kubernetes Nodes in correspondence',
    '',
    'Usage: ec2-node-reconciler COMMAND [options]   (COMMAND --help for its options)',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    EXIT_HELP,
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${mainHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`error: unknown command ${JSON.stringify(name)}\n\n${mainHelp()}\n`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`Usage: ec2-node-reconciler ${command.usage}\n\n${command.summary}\n${command.help ? `\n${command.help}\n` : ''}\n${EXIT_HELP}\n`);
    return EXIT.ok;
  }
  try {
    const options = command.settings === true ? { ...command.options, ...(await import('./settings-flags.js')).settingOptions() } : command.options;
    const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    const run = await command.load();
    return await run(values, positionals);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    // parseArgs: unknown flag or missing value.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${error.message} (see: ec2-node-reconciler ${name} --help)\n`);
      return EXIT.usage;
    }
    process.stderr.write(`error: ${errorText(error)}\n`);
    return EXIT.error;
  }
}
