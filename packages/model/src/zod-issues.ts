import type * as z from 'zod';

/** `path: message` for each issue, joined: errors that name the field (`prefix` names where it came from). */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues.map((i) => `${prefix}${i.path.join('.') || (prefix ? '' : '(root)')}: ${i.message}`).join('; ');
}
