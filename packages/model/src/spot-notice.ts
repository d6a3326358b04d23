/**
 * EC2 sends the Spot Instance Interruption Warning two minutes before it interrupts the machine
 * (hibernation starts at once, so this is an upper bound): the drain deadline of a spot
 * interruption, and when the sandbox's EC2 reclaims the machine.
 */
export const SPOT_NOTICE_MS = 2 * 60_000;
