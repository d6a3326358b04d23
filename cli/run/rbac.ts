// `rbac`: the Kubernetes RBAC manifest the reconciler needs.
import { rbacYaml } from '@ec2-node-reconciler/model/contract/rbac.js';
import type { CommandRun } from '../command-run.js';
import { EXIT } from '../exit-codes.js';
import { out } from './shared.js';

export const runRbacCommand: CommandRun = () => {
  out(rbacYaml());
  return Promise.resolve(EXIT.ok);
};
