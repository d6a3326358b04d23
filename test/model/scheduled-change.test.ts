import { describe, expect, it } from 'vitest';
import { scheduledChangeClass } from '@ec2-node-reconciler/model/scheduled-change.js';

describe('scheduledChangeClass: one table for both paths', () => {
  it.each([
    ['instance-retirement', 'removal'],
    ['instance-stop', 'removal'],
    ['instance-reboot', 'maintenance'],
    ['system-reboot', 'maintenance'],
    ['system-maintenance', 'maintenance'],
    ['AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED', 'removal'],
    ['AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED', 'removal'],
    ['AWS_EC2_INSTANCE_STOP_SCHEDULED', 'removal'],
    ['AWS_EC2_INSTANCE_REBOOT_MAINTENANCE_SCHEDULED', 'maintenance'],
    ['AWS_EC2_INSTANCE_REBOOT_FLEXIBLE_MAINTENANCE_SCHEDULED', 'maintenance'],
    ['AWS_EC2_SYSTEM_REBOOT_MAINTENANCE_SCHEDULED', 'maintenance'],
    ['AWS_EC2_SYSTEM_MAINTENANCE_EVENT', 'maintenance'],
    ['AWS_EC2_INSTANCE_NETWORK_MAINTENANCE_SCHEDULED', 'maintenance'],
  ])('should class %s as %s', (code, kind) => {
    expect(scheduledChangeClass(code)).toBe(kind);
  });

  it.each(['AWS_EC2_OPERATIONAL_ISSUE', 'AWS_RDS_MAINTENANCE_SCHEDULED', 'instance-explode', ''])(
    'should not guess at %j',
    (code) => {
      expect(scheduledChangeClass(code)).toBeUndefined();
    },
  );
});
