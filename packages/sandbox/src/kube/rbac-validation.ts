// Validation of RBAC objects as pkg/apis/rbac/validation does it: rules name verbs and either
// resources (with groups) or, cluster-wide only, non-resource URLs; bindings refer to a role of an
// allowed kind and never change that reference; subjects are well-formed.
import { deepEqual } from './patch.js';
import { RBAC_GROUP, type ResourceDef } from './resources.js';
import { isRecord, type KubeObject } from './types.js';

export type FieldError = { field: string; type: string; detail: string };

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function ruleErrors(rule: unknown, namespaced: boolean, path: string): FieldError[] {
  if (!isRecord(rule)) return [{ field: path, type: 'Invalid value', detail: 'must be an object' }];
  const errors: FieldError[] = [];
  if (list(rule['verbs']).length === 0)
    errors.push({ field: `${path}.verbs`, type: 'Required value', detail: 'verbs must contain at least one value' });
  if (list(rule['nonResourceURLs']).length > 0) {
    if (namespaced)
      errors.push({
        field: `${path}.nonResourceURLs`,
        type: 'Invalid value',
        detail: 'namespaced rules cannot apply to non-resource URLs',
      });
    if (
      list(rule['apiGroups']).length > 0 ||
      list(rule['resources']).length > 0 ||
      list(rule['resourceNames']).length > 0
    ) {
      errors.push({
        field: `${path}.nonResourceURLs`,
        type: 'Invalid value',
        detail: 'rules cannot apply to both regular resources and non-resource URLs',
      });
    }
    return errors;
  }
  if (list(rule['apiGroups']).length === 0)
    errors.push({
      field: `${path}.apiGroups`,
      type: 'Required value',
      detail: 'resource rules must supply at least one api group',
    });
  if (list(rule['resources']).length === 0)
    errors.push({
      field: `${path}.resources`,
      type: 'Required value',
      detail: 'resource rules must supply at least one resource',
    });
  return errors;
}

function subjectErrors(subject: unknown, clusterScoped: boolean, path: string): FieldError[] {
  if (!isRecord(subject)) return [{ field: path, type: 'Invalid value', detail: 'must be an object' }];
  const errors: FieldError[] = [];
  const kind = text(subject['kind']);
  if (text(subject['name']) === '') errors.push({ field: `${path}.name`, type: 'Required value', detail: '' });
  switch (kind) {
    case 'ServiceAccount':
      if (text(subject['apiGroup']) !== '')
        errors.push({
          field: `${path}.apiGroup`,
          type: 'Unsupported value',
          detail: `"${text(subject['apiGroup'])}": supported values: ""`,
        });
      if (clusterScoped && text(subject['namespace']) === '')
        errors.push({ field: `${path}.namespace`, type: 'Required value', detail: '' });
      break;
    case 'User':
    case 'Group':
      if (text(subject['apiGroup']) !== RBAC_GROUP)
        errors.push({
          field: `${path}.apiGroup`,
          type: 'Unsupported value',
          detail: `"${text(subject['apiGroup'])}": supported values: "${RBAC_GROUP}"`,
        });
      break;
    default:
      errors.push({
        field: `${path}.kind`,
        type: 'Unsupported value',
        detail: `"${kind}": supported values: "ServiceAccount", "User", "Group"`,
      });
  }
  return errors;
}

/** The field errors of a Role, ClusterRole, RoleBinding or ClusterRoleBinding about to be stored over `old`. */
export function rbacErrors(def: ResourceDef, next: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (def.group !== RBAC_GROUP) return [];
  if (def.kind === 'Role' || def.kind === 'ClusterRole')
    return list(next['rules']).flatMap((rule, i) => ruleErrors(rule, def.namespaced, `rules[${i}]`));
  const errors: FieldError[] = [];
  const ref = isRecord(next['roleRef']) ? next['roleRef'] : undefined;
  if (ref === undefined) return [{ field: 'roleRef', type: 'Required value', detail: '' }];
  if (text(ref['apiGroup']) !== RBAC_GROUP)
    errors.push({
      field: 'roleRef.apiGroup',
      type: 'Unsupported value',
      detail: `"${text(ref['apiGroup'])}": supported values: "${RBAC_GROUP}"`,
    });
  const kinds = def.kind === 'ClusterRoleBinding' ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(text(ref['kind'])))
    errors.push({
      field: 'roleRef.kind',
      type: 'Unsupported value',
      detail: `"${text(ref['kind'])}": supported values: ${kinds.map((k) => `"${k}"`).join(', ')}`,
    });
  if (text(ref['name']) === '') errors.push({ field: 'roleRef.name', type: 'Required value', detail: '' });
  if (old !== undefined && !deepEqual(old['roleRef'], next['roleRef'])) {
    errors.push({ field: 'roleRef', type: 'Invalid value', detail: 'cannot change roleRef' });
  }
  list(next['subjects']).forEach((subject, i) =>
    errors.push(...subjectErrors(subject, def.kind === 'ClusterRoleBinding', `subjects[${i}]`)),
  );
  return errors;
}

/**
 * The defaults rbac/v1 sets on a binding before validation (SetDefaults_RoleBinding,
 * SetDefaults_ClusterRoleBinding, SetDefaults_Subject): an empty roleRef.apiGroup, and the apiGroup
 * of a User or Group subject, become rbac.authorization.k8s.io. Other objects pass as they are.
 */
export function withRbacDefaults(def: ResourceDef, object: KubeObject): KubeObject {
  if (def.group !== RBAC_GROUP || (def.kind !== 'RoleBinding' && def.kind !== 'ClusterRoleBinding')) return object;
  const out: KubeObject = { ...object };
  const ref = object['roleRef'];
  if (isRecord(ref) && text(ref['apiGroup']) === '') out['roleRef'] = { ...ref, apiGroup: RBAC_GROUP };
  if (Array.isArray(object['subjects'])) {
    out['subjects'] = object['subjects'].map((subject: unknown) =>
      isRecord(subject) &&
      text(subject['apiGroup']) === '' &&
      (subject['kind'] === 'User' || subject['kind'] === 'Group')
        ? { ...subject, apiGroup: RBAC_GROUP }
        : subject,
    );
  }
  return out;
}
