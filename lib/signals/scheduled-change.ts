/**
 * AWS Health Event: only EC2 scheduled changes concern nodes. Their type code says what kind
 * (packages/model/src/scheduled-change.ts, the table the sweep uses too): retirement and stop are removals,
 * reboot and maintenance are maintenance (the machine comes back). Each affected instance gets its
 * own signal, due before the change's start time. Every other service or category, and a type code
 * that names neither kind, is ignored with its reason.
 *
 * Example (AWS Health User Guide, "AWS Health events Amazon EventBridge schema"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "7fb65329-1628-4cf3-a740-95fd457b1402",
 *   "detail-type": "AWS Health Event",
 *   "source": "aws.health",
 *   "account": "123456789012",
 *   "time": "2022-05-20T06:27:57Z",
 *   "region": "us-east-1",
 *   "resources": ["i-1234567890abcdef0"],
 *   "detail": {
 *     "eventArn": "arn:aws:health:us-east-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED_1a2b3c",
 *     "service": "EC2",
 *     "eventScopeCode": "ACCOUNT_SPECIFIC",
 *     "communicationId": "1234abc01232a4012345678-1",
 *     "lastUpdatedTime": "Fri, 20 May 2022 06:27:57 GMT",
 *     "statusCode": "upcoming",
 *     "eventRegion": "us-east-1",
 *     "eventTypeCode": "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
 *     "eventTypeCategory": "scheduledChange",
 *     "startTime": "Fri, 3 Jun 2022 06:27:57 GMT",
 *     "endTime": "Fri, 3 Jun 2022 07:27:57 GMT",
 *     "eventDescription": [{ "language": "en_US", "latestDescription": "EC2 has detected degradation …" }],
 *     "affectedEntities": [{ "entityValue": "i-1234567890abcdef0" }]
 *   }
 * }
 * ```
 */
import * as z from 'zod';
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { scheduledChangeClass } from '@ec2-node-reconciler/model/scheduled-change.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { defineSignal, emit, fromEnvelope, ignore, isoTime, preview } from './signal-module.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const RFC_1123 =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * `Fri, 3 Jun 2022 06:27:57 GMT` to epoch ms, or undefined. The weekday is not checked: AWS's
 * own samples carry wrong ones ("Sat, 05 Jun 2016"), and the date alone is what matters.
 */
export function parseRfc1123(text: string): number | undefined {
  const match = RFC_1123.exec(text);
  if (!match) return undefined;
  const [day = NaN, year = NaN, hour = NaN, minute = NaN, second = NaN] = [1, 3, 4, 5, 6].map((group) =>
    Number(match[group]),
  );
  const month = MONTHS.findIndex((m) => m === match[2]);
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second);
  const date = new Date(ms);
  // Date.UTC rolls 31 Jun over to 1 Jul and maps two-digit years to the 1900s; refuse both.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return ms;
}

const Rfc1123TimeSchema = z.string().transform((text, ctx) => {
  const ms = parseRfc1123(text);
  if (ms === undefined) {
    const message = 'must be an RFC 1123 time such as "Fri, 3 Jun 2022 06:27:57 GMT"';
    ctx.issues.push({ code: 'custom', message, input: text });
    return z.NEVER;
  }
  return ms;
});

/**
 * Entities may be other things than instances (a Dedicated Host, the account): those are skipped.
 * A value dressed as an instance id that is not one is hostile or corrupt, and rejects the event.
 */
const EntityValueSchema = z
  .string()
  .max(1224)
  .refine((value) => !value.startsWith('i-') || isInstanceId(value), {
    message: 'must be an EC2 instance id (i- and 8 or 17 hex digits)',
  });

/** What an EC2 scheduled change must carry for the reconciler to act on it. */
const Ec2ScheduledChangeSchema = z.object({
  eventTypeCode: z.string().max(100).optional(),
  statusCode: z.string().max(32).optional(),
  startTime: Rfc1123TimeSchema,
  endTime: Rfc1123TimeSchema.optional(),
  // Public (not account-specific) events name no entities: nothing to act on, which emit() reports.
  affectedEntities: z.array(z.object({ entityValue: EntityValueSchema })).default([]),
});

/**
 * Health carries events of every service, whose details differ. Only an EC2 scheduled change is
 * held to the strict schema above; for anything else just `service` and `eventTypeCategory` are
 * read, so that an RDS notice of an unusual shape is ignored rather than rejected. The branch is
 * chosen by a `concernsInstances` key computed beforehand, so that zod reports the chosen
 * branch's own errors (a plain union would report both branches' failures at once).
 */
const HealthDetailSchema = z.preprocess(
  (detail) => {
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return detail;
    const isEc2 = 'service' in detail && detail.service === 'EC2';
    const isScheduled = 'eventTypeCategory' in detail && detail.eventTypeCategory === 'scheduledChange';
    return { ...detail, concernsInstances: isEc2 && isScheduled };
  },
  z.discriminatedUnion('concernsInstances', [
    Ec2ScheduledChangeSchema.extend({ concernsInstances: z.literal(true) }),
    z.object({ concernsInstances: z.literal(false), service: z.string(), eventTypeCategory: z.string() }),
  ]),
);

export const scheduledChange = defineSignal({
  kind: 'scheduled-change',
  source: 'aws.health',
  detailType: 'AWS Health Event',
  detail: HealthDetailSchema,
  rule: {
    description: 'AWS Health EC2 scheduled change (retirement, maintenance): the affected nodes are slated',
    // The same test as HealthDetailSchema's `concernsInstances`: what the module would ignore never reaches it.
    detail: () => ({ service: ['EC2'], eventTypeCategory: ['scheduledChange'] }),
  },
  toSignals(event) {
    const detail = event.detail;
    if (!detail.concernsInstances) {
      return ignore(
        `AWS Health ${detail.eventTypeCategory} event for ${detail.service}: only EC2 scheduled changes concern nodes`,
      );
    }
    // A closed scheduled change is over (the reboot or maintenance happened); draining now would move pods for nothing.
    if (detail.statusCode === 'closed')
      return ignore(`AWS Health ${detail.eventTypeCode ?? 'scheduled change'} is closed`);

    const code = detail.eventTypeCode;
    const change = code === undefined ? undefined : scheduledChangeClass(code);
    if (code === undefined || change === undefined) {
      return ignore(
        `AWS Health EC2 scheduled change ${code ?? 'without an eventTypeCode'}: not a known retirement, stop, reboot or maintenance code, so nothing is done`,
      );
    }
    const envelope = fromEnvelope(event);
    const what = change === 'removal' ? 'is scheduled to go' : 'has scheduled maintenance';
    const seen = new Set<InstanceId>();
    const signals: Signal[] = [];
    const skipped: string[] = [];
    detail.affectedEntities.forEach(({ entityValue }, index) => {
      const field = `detail.affectedEntities[${index}].entityValue`;
      if (!isInstanceId(entityValue)) {
        skipped.push(`${field}: ${preview(entityValue)} is not an instance id`);
      } else if (seen.has(entityValue)) {
        skipped.push(`${field}: ${entityValue} is listed twice`);
      } else {
        seen.add(entityValue);
        signals.push({
          kind: 'scheduled-change',
          instanceId: entityValue,
          ...envelope,
          deadline: detail.startTime,
          scheduled: {
            change,
            code,
            start: detail.startTime,
            ...(detail.endTime !== undefined ? { end: detail.endTime } : {}),
          },
          description: `AWS Health ${code}: ${entityValue} ${what} from ${isoTime(detail.startTime)}${detail.endTime !== undefined ? ` to ${isoTime(detail.endTime)}` : ''}.`,
        });
      }
    });
    return emit(signals, skipped);
  },
});
