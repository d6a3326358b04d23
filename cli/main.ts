// ec2-node-reconciler: the command line.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { COMMANDS, type Command, type Options } from './commands.js';
import { CliError, EXIT } from './exit-codes.js';
import { didYouMean } from '../lib/support/suggest.js';

const EXIT_HELP = `Exit codes:
  0  done; every expectation held
  1  ran, but did not achieve what was asked (a failed expectation or action, a drain that did not
     drain, a node or instance that does not exist)
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

const commandHelp = (name: string, command: Command): string =>
  `Usage: ec2-node-reconciler ${command.usage}\n\n${command.summary}\n${command.help ? `\n${command.help}\n` : ''}\n${EXIT_HELP}\n`;

/** The package's version, from its package.json (next to cli/, wherever the CLI was built to). */
function version(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const value =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
  return typeof value === 'string' ? value : 'unknown';
}

const unknownCommand = (name: string): string =>
  `error: unknown command ${JSON.stringify(name)}${didYouMean(name, Object.keys(COMMANDS))}\n\n${mainHelp()}\n`;

/**
 * parseArgs' message, said plainly: an unknown flag with the nearest known ones; a flag's value that
 * looks like a flag (`--max-deletions -1`) with how to pass it.
 */
function parseArgsMessage(error: TypeError & { code: unknown }, options: Options): string {
  const flags = Object.keys(options);
  const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec(error.message);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown?.[2] !== undefined) {
    return `unknown flag ${unknown[1] ?? ''}${unknown[2]}${didYouMean(unknown[2], flags, (f) => `--${f}`)}`;
  }
  const ambiguous = /^Option '(?:-\w, )?--([^' ]+)(?: <value>)?' argument is ambiguous/.exec(error.message);
  if (ambiguous?.[1] !== undefined)
    return `--${ambiguous[1]} needs a value, and the next argument looks like a flag: write --${ambiguous[1]}=VALUE`;
  return error.message.split('\n')[0] ?? error.message;
}

/**
 * `--flag=VALUE` for a boolean flag, which parseArgs refuses: `=true` (or one of the command's own
 * words for it, such as kubectl's `--dry-run=client`) is the flag; `=false` says it is off, and the
 * command sees `false`; any other value is refused, naming the values the flag takes.
 */
function booleanFlagValues(
  args: readonly string[],
  options: Options,
  command: Command,
): { args: string[]; off: Record<string, false> } {
  const kept: string[] = [];
  const off: Record<string, false> = {};
  for (const [index, arg] of args.entries()) {
    if (arg === '--') {
      kept.push(...args.slice(index));
      break;
    }
    const written = /^--([^=]+)=(.*)$/s.exec(arg);
    const name = written?.[1];
    if (name === undefined || options[name]?.type !== 'boolean') {
      kept.push(arg);
      continue;
    }
    const value = written?.[2] ?? '';
    const words: Readonly<Record<string, boolean>> = { true: true, false: false, ...command.flagValues?.[name] };
    const meaning = Object.hasOwn(words, value) ? words[value] : undefined;
    if (meaning === undefined) {
      const taken = Object.keys(words).map((word) => `--${name}=${word}`);
      throw new CliError(`--${name}=${value}: --${name} takes no value, or one of ${taken.join(', ')}`);
    }
    if (meaning) kept.push(`--${name}`);
    else off[name] = false;
  }
  return { args: kept, off };
}

function positionalsExpected(name: string, count: number): string {
  const usage = COMMANDS[name]?.usage ?? name;
  return count === 0 ? `${name} takes no arguments (usage: ${usage})` : `usage: ${usage}`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`ec2-node-reconciler ${version()} (node ${process.version})\n`);
    return EXIT.ok;
  }
  if (name === 'help' && rest[0] !== undefined) {
    const [topic] = rest;
    const command = COMMANDS[topic];
    if (!command) {
      process.stderr.write(unknownCommand(topic));
      return EXIT.usage;
    }
    process.stdout.write(commandHelp(topic, command));
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${mainHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(unknownCommand(name));
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, command));
    return EXIT.ok;
  }
  let options: Options = command.options;
  try {
    if (command.settings === true)
      options = { ...command.options, ...(await import('./settings-flags.js')).settingOptions() };
    const written = booleanFlagValues(rest, options, command);
    const parsed = parseArgs({ args: written.args, options, allowPositionals: true, strict: true });
    const values: Record<string, unknown> = { ...parsed.values, ...written.off };
    const { positionals } = parsed;
    const most = command.positionals ?? 0;
    if (positionals.length > most) {
      const extra = positionals.slice(most).map((p) => JSON.stringify(p));
      throw new CliError(`unexpected argument ${extra.join(' ')}: ${positionalsExpected(name, most)}`);
    }
    // The SDK's default credential chain (and the region of a profile) read AWS_PROFILE when a client is made.
    if (typeof values['profile'] === 'string') process.env['AWS_PROFILE'] = values['profile'];
    const run = await command.load();
    return await run(values, positionals);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    // parseArgs: unknown flag or missing value.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${parseArgsMessage(error, options)} (see: ec2-node-reconciler ${name} --help)\n`);
      return EXIT.usage;
    }
    process.stderr.write(`error: ${errorText(error)}\n`);
    return EXIT.error;
  }
}
