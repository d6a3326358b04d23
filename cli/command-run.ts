// The contract between the command table (commands.ts) and the commands themselves (run/*.ts), on
// its own so that the table, which imports the commands lazily, and the commands never import each other.

/** A command at work: its parsed flags and positionals in, its exit code out. */
export type CommandRun = (values: Record<string, unknown>, positionals: string[]) => Promise<number>;
