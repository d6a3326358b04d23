// What the functions say in their logs, as the sandbox, doctor and operators read it: the events
// function's line about each record and the error name of a poison event, the sweep's line with its
// report. the log queries in docs/operations.md, the sandbox's step records and doctor match these
// strings; the functions write them from here.

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

/** The `message` of the sweep function's log line with its run report (`report`): what doctor reads the last sweep from. */
export const SWEEP_RUN_LOG = 'sweep reconciled';
