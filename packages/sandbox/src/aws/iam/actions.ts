// IAM action names of the emulator's operations. An action is `<signing name>:<Operation>` except
// where the Service Authorization Reference names it otherwise: Lambda's Invoke API is authorized
// as `lambda:InvokeFunction`. Faults and scenarios name calls by either name.
import type { ServiceName } from '../services/names.js';

/** Operation → IAM action name, per service, where the two differ. */
const RENAMED: Readonly<Partial<Record<ServiceName, Readonly<Record<string, string>>>>> = {
  lambda: { Invoke: 'InvokeFunction' },
};

/** The IAM action a call of `operation` is authorized as: `lambda:InvokeFunction` for Lambda's Invoke. */
export function iamAction(service: ServiceName, operation: string): string {
  return `${service}:${RENAMED[service]?.[operation] ?? operation}`;
}

/**
 * The emulator's operation a name stands for: the operation itself, or its IAM action name
 * (`InvokeFunction` is Lambda's `Invoke`), so a fault may be written either way.
 */
export function operationNamed(service: ServiceName, name: string): string {
  const renamed = RENAMED[service] ?? {};
  return Object.keys(renamed).find((operation) => renamed[operation] === name) ?? name;
}
