// EventBridge Scheduler (restJson): GetSchedule, for the deployed sweep schedule.
import { AwsError } from '../errors.js';
import { epochSeconds } from '../protocol/json.js';
import type { RestJsonService } from './types.js';

export const schedulerService: RestJsonService = {
  name: 'scheduler',
  protocol: 'rest-json',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded', 429),
  routes: [
    {
      method: 'GET',
      pattern: /^\/schedules\/([^/]+)$/,
      operation: 'GetSchedule',
      handle([name = ''], ctx) {
        const group = ctx.request.query.get('groupName') ?? 'default';
        const schedule = ctx.state.schedules.get(name, group);
        if (!schedule) throw new AwsError('ResourceNotFoundException', `Schedule ${name} does not exist.`, 404);
        const { target } = schedule;
        return {
          body: {
            Arn: schedule.arn,
            Name: schedule.name,
            GroupName: schedule.groupName,
            State: schedule.state,
            ...(schedule.description !== undefined ? { Description: schedule.description } : {}),
            ScheduleExpression: schedule.expression,
            ...(schedule.timezone !== undefined ? { ScheduleExpressionTimezone: schedule.timezone } : {}),
            FlexibleTimeWindow: {
              Mode: schedule.flexibleTimeWindow.mode,
              ...(schedule.flexibleTimeWindow.maximumWindowInMinutes !== undefined
                ? { MaximumWindowInMinutes: schedule.flexibleTimeWindow.maximumWindowInMinutes }
                : {}),
            },
            Target: {
              Arn: target.arn,
              RoleArn: target.roleArn,
              ...(target.input !== undefined ? { Input: target.input } : {}),
              RetryPolicy: {
                MaximumRetryAttempts: target.maximumRetryAttempts,
                MaximumEventAgeInSeconds: target.maximumEventAgeSeconds,
              },
            },
            ActionAfterCompletion: 'NONE',
            CreationDate: epochSeconds(schedule.createdAt),
            LastModificationDate: epochSeconds(schedule.modifiedAt),
          },
        };
      },
    },
  ],
};
