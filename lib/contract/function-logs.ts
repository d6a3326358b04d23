// What the events function says about each record in its log, as the sandbox and operators read
// it: the log line's `message`, and the error name of a poison event. Logs Insights queries in the
// README and the sandbox's step records match these strings; the function writes them from here.

/** The `message` of the events function's log line about one SQS record. */
export const EVENT_RECORD_LOG = {
  /** The event is not for the reconciler (another cluster, a state nobody acts on): `reason` says why. */
  ignored: 'event ignored',
  /** The event's signals were reconciled: `report` holds the run report. */
  reconciled: 'event reconciled',
  /** The record failed this receive: `error` holds the error's name and message. */
  failed: 'record failed',
} as const;

/** The `error.name` of a record that can never be processed (a poison event: it ends in the DLQ). */
export const SIGNAL_REJECTION_NAME = 'SignalRejection';
