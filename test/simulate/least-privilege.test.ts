// Least privilege, proven permission by permission: for each (role, action) of the synthesized
// template's identity policies and each (API group, resource, verb) of the shipped RBAC manifest,
// its witness (support/permission-witnesses.ts) passes in the deployed world with every permission
// and fails with that one taken out. The table covers exactly what the template and the manifest
// hold: a permission without a witness, or a witness for a permission the stack no longer has,
// fails here.
import { describe, expect, it } from 'vitest';
import { deploy } from '@ec2-node-reconciler/sandbox/deployed/deploy.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import { WITNESSES, type Witness } from './support/permission-witnesses.js';
import { iamPermissions, permissionKey, rbacPermissions, type Permission } from './support/permissions.js';
import { runWitness, witnessName, type WitnessRun } from './support/witness-runs.js';

// The shape every scenario's stack has (the witnesses' regions synthesize the same template).
const deployed = await deploy({
  clusterName: 'demo',
  region: 'us-east-1',
  accountId: '111122223333',
  settings: DEFAULT_SETTINGS,
});
const PERMISSIONS: readonly Permission[] = [...iamPermissions(deployed.deployment), ...rbacPermissions()];

// Each witness runs once with every permission, however many permissions it proves.
const baselines = new Map<Witness, Promise<WitnessRun>>();
const baseline = (witness: Witness): Promise<WitnessRun> => {
  let run = baselines.get(witness);
  if (!run) baselines.set(witness, (run = runWitness(witness)));
  return run;
};

describe('least privilege', () => {
  it('should have a witness for every permission of the template and the RBAC manifest, and for nothing else', () => {
    const keys = PERMISSIONS.map(permissionKey).sort();
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(WITNESSES).sort()).toEqual(keys);
  });

  describe.concurrent('each permission is needed: its witness fails without it', () => {
    for (const permission of PERMISSIONS) {
      const key = permissionKey(permission);
      const witness = WITNESSES[key];
      if (!witness) continue;
      it(`${key} (${witnessName(witness)})`, async () => {
        const full = await baseline(witness);
        expect(full, `${witnessName(witness)} with every permission`).toMatchObject({ failures: [], denied: [] });

        const without = await runWitness(witness, permission);

        expect(
          without.failures.length + without.denied.length,
          `${witnessName(witness)} without ${key}`,
        ).toBeGreaterThan(0);
        // What failed is the removed permission: a call of its role for its action (or its verb on its
        // resource) was refused, as the deployed world reports it (`denied`).
        expect(without.refusedTheRemoved, without.denied.join('; ')).toBe(true);
      });
    }
  });
});
