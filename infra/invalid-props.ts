/**
 * Props a construct refuses, each bad one named with the fix (`NodeReconciler: invalid props: - …`).
 * A usage error: the app prints its message alone, as it does for a bad context key.
 */
export class InvalidPropsError extends Error {
  override readonly name = 'InvalidPropsError';

  constructor(construct: string, problems: readonly string[]) {
    super(`${construct}: invalid props:\n  - ${problems.join('\n  - ')}`);
  }
}
