// The drain workflow's execution logs go to a log group under /aws/vendedlogs/ (issue #28, 5): CloudWatch
// Logs lets Step Functions deliver there without adding the group to the account's logs resource
// policy, whose size limit accounts with many deliveries reach, failing the deployment.
import { readDeployment } from '@ec2-node-reconciler/sandbox/deployment/template.js';
import { describe, expect, it } from 'vitest';
import { defaultStack } from './support/synth.js';
import { only, propertiesOf } from './support/template.js';

/** Log group names CloudWatch Logs accepts: 1–512 of these characters. */
const LOG_GROUP_NAME = /^[\w.\-/#]{1,512}$/;

describe('the drain workflow’s log group', () => {
  it('should be named under /aws/vendedlogs/states/, new with each creation of the stack', () => {
    // Prepare
    const { template } = defaultStack();
    const [, machine] = only(template, 'AWS::StepFunctions::StateMachine');
    const logging = machine.Properties?.['LoggingConfiguration'] as {
      Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [string, string] } } }[];
    };
    // Act
    const [groupId] = logging.Destinations[0]?.CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'] ?? [];
    const name = propertiesOf(template, groupId ?? '')['LogGroupName'] as { 'Fn::Join': [string, unknown[]] };
    // Assess
    const [first] = name['Fn::Join'][1];
    expect(first).toMatch(/^\/aws\/vendedlogs\/states\//);
    // A group a deleted stack retained (RemovalPolicy.RETAIN) never blocks creating the stack again.
    expect(JSON.stringify(name)).toContain('{"Ref":"AWS::StackId"}');
  });

  it('should resolve, as CloudFormation names it, to a log group name CloudWatch Logs accepts', () => {
    const { template } = defaultStack();
    const deployment = readDeployment(template.toJSON(), {
      stackName: 'ec2-node-reconciler-demo',
      region: 'eu-west-1',
      accountId: '111122223333',
    });
    const destinations = deployment.stateMachines.flatMap((machine) => machine.logDestinations);
    expect(destinations).toHaveLength(1);
    for (const arn of destinations) {
      const name = /^arn:aws:logs:eu-west-1:111122223333:log-group:(.+):\*$/.exec(arn)?.[1] ?? '';
      expect(name).toMatch(
        /^\/aws\/vendedlogs\/states\/.+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      expect(name).toMatch(LOG_GROUP_NAME);
    }
  });
});
