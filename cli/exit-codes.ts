/** Exit codes, documented in `--help` and docs/operations.md. */
export const EXIT = {
  /** Done; every expectation held. */
  ok: 0,
  /** Ran, but did not achieve what was asked: a failed expectation or action, a drain that did not drain, a node or instance that does not exist. */
  findings: 1,
  /** Bad input: unknown flag, malformed event or scenario file (the field is named). Nothing was changed. */
  usage: 2,
  /** Could not run: no cluster access, no AWS credentials, an API error. */
  error: 3,
} as const;

/** An error the CLI reports as `error: <message>` with a chosen exit code, no stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
