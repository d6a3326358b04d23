/**
 * An error a handler raises; each protocol renders it in its own wire shape (EC2 `<Response><Errors>`,
 * awsquery `<ErrorResponse>`, JSON `__type`), so handlers never know which one they speak.
 */
export class AwsError extends Error {
  /** Who is at fault, as awsquery's `<Type>` reports it. */
  readonly fault: 'Sender' | 'Receiver';

  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'AwsError';
    this.fault = status >= 500 ? 'Receiver' : 'Sender';
  }
}

/** Anything a handler throws that is not an AwsError is our bug: answer as AWS does for its own (500). */
export function asAwsError(error: unknown): AwsError {
  if (error instanceof AwsError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AwsError('InternalFailure', `emulator error: ${message}`, 500);
}
