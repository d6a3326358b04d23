// The OpenAPI v3 discovery kubectl reads before it writes: `kubectl apply` (and create, replace)
// validates objects, and asks /openapi/v3 whether the server validates fields itself (the PATCH
// operation of the kind lists the `fieldValidation` query parameter). It does here, so kubectl sends
// `fieldValidation=Strict` and leaves validation to the server (handlers.ts, for the kinds whose
// fields the emulator knows), instead of downloading the OpenAPI v2 document the emulator does not
// serve. The documents carry paths and operations only, no schemas: kubectl then computes apply
// patches from its compiled-in types, as it does for built-in kinds.
import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceDef } from './resources.js';

const served = RESOURCES.filter((r) => r.virtual !== true);

/** `api/v1` or `apis/<group>/<version>`: the keys of the root document. */
const groupVersionPath = (def: Pick<ResourceDef, 'group' | 'version'>): string =>
  def.group === '' ? `api/${def.version}` : `apis/${def.group}/${def.version}`;

function paths(gvPath: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of served.filter((r) => groupVersionPath(r) === gvPath)) {
    const collection = def.namespaced ? `/${gvPath}/namespaces/{namespace}/${def.plural}` : `/${gvPath}/${def.plural}`;
    const gvk = { group: def.group, version: def.version, kind: def.kind };
    const operation = (action: string, id: string, parameters: unknown[]) => ({
      operationId: `${id}${def.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters,
      responses: { '200': { description: 'OK' } },
    });
    const query = (name: string, description: string) => ({
      name,
      in: 'query',
      description,
      schema: { type: 'string', uniqueItems: true },
    });
    const writeParameters = [
      query('dryRun', 'When present, indicates that modifications should not be persisted.'),
      query('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
      query(
        'fieldValidation',
        'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.',
      ),
    ];
    if (def.verbs.includes('create')) out[collection] = { post: operation('post', 'create', writeParameters) };
    out[`${collection}/{name}`] = {
      get: operation('get', 'read', []),
      ...(def.verbs.includes('update') ? { put: operation('put', 'replace', writeParameters) } : {}),
      ...(def.verbs.includes('patch')
        ? {
            patch: operation('patch', 'patch', [
              ...writeParameters,
              query('force', 'Force is going to "force" Apply requests.'),
            ]),
          }
        : {}),
      ...(def.verbs.includes('delete') ? { delete: operation('delete', 'delete', []) } : {}),
    };
  }
  return out;
}

const hashOf = (document: unknown): string =>
  createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase().slice(0, 128);

/** The document of one group-version (`/openapi/v3/apis/rbac.authorization.k8s.io/v1`), or undefined when none is served there. */
export function openApiGroupVersion(gvPath: string, gitVersion: string): Record<string, unknown> | undefined {
  if (!served.some((r) => groupVersionPath(r) === gvPath)) return undefined;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: paths(gvPath),
    components: { schemas: {} },
  };
}

/** `/openapi/v3`: where each group-version's document is, with a content hash as the real server gives. */
export function openApiRoot(gitVersion: string): Record<string, unknown> {
  const gvPaths = [...new Set(served.map(groupVersionPath))];
  return {
    paths: Object.fromEntries(
      gvPaths.map((gv) => [
        gv,
        { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(openApiGroupVersion(gv, gitVersion))}` },
      ]),
    ),
  };
}
