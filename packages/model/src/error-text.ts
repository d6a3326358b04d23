/** An error and its causes in one line, for reports and logs. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const own =
    error.name && error.name !== 'Error' && !error.message.startsWith(error.name)
      ? `${error.name}: ${error.message}`
      : error.message;
  return error.cause === undefined ? own : `${own}: ${errorText(error.cause)}`;
}
