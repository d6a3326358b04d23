import { describe, expect, it } from 'vitest';
import { matchesPattern, PatternError } from '@ec2-node-reconciler/sandbox/aws/event-pattern.js';

// Cases follow the examples of the EventBridge User Guide ("Content filtering in event patterns").
const event = {
  source: 'aws.ec2',
  'detail-type': 'EC2 Instance State-change Notification',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-1234567890abcdef0'],
  detail: {
    'instance-id': 'i-1234567890abcdef0',
    state: 'terminated',
    count: 5,
    flag: false,
    nothing: null,
    tags: ['a', 'b'],
    nested: { level: 'deep' },
  },
};

describe('matchesPattern', () => {
  it('should match literal values and ignore fields the pattern does not name', () => {
    expect(matchesPattern({ source: ['aws.ec2'] }, event)).toBe(true);
    expect(matchesPattern({ source: ['aws.autoscaling', 'aws.ec2'], detail: { state: ['terminated'] } }, event)).toBe(
      true,
    );
    expect(matchesPattern({ source: ['aws.autoscaling'] }, event)).toBe(false);
  });

  it('should require every key of the pattern to match', () => {
    expect(matchesPattern({ source: ['aws.ec2'], detail: { state: ['running'] } }, event)).toBe(false);
  });

  it('should match numbers, booleans and null exactly, never as strings', () => {
    expect(matchesPattern({ detail: { count: [5], flag: [false], nothing: [null] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { count: ['5'] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { flag: ['false'] } }, event)).toBe(false);
  });

  it('should match an array field when any element matches', () => {
    expect(matchesPattern({ detail: { tags: ['b'] } }, event)).toBe(true);
    expect(matchesPattern({ resources: [{ prefix: 'arn:aws:ec2:' }] }, event)).toBe(true);
    expect(matchesPattern({ detail: { tags: ['c'] } }, event)).toBe(false);
  });

  it('should not match a missing field, except with exists false', () => {
    expect(matchesPattern({ detail: { absent: ['x'] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { absent: [{ exists: false }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ exists: false }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { state: [{ exists: true }] } }, event)).toBe(true);
    expect(matchesPattern({ missing: { deeper: ['x'] } }, event)).toBe(false);
  });

  it('should treat exists as a leaf test that an object does not pass', () => {
    expect(matchesPattern({ detail: { nested: [{ exists: true }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { nested: { level: [{ exists: true }] } } }, event)).toBe(true);
  });

  it('should match prefix, suffix and their equals-ignore-case forms', () => {
    expect(matchesPattern({ detail: { 'instance-id': [{ prefix: 'i-' }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ suffix: 'nated' }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ prefix: { 'equals-ignore-case': 'TERM' } }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ prefix: 'TERM' }] } }, event)).toBe(false);
  });

  it('should match equals-ignore-case and wildcard', () => {
    expect(matchesPattern({ detail: { state: [{ 'equals-ignore-case': 'TERMINATED' }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ wildcard: 'ter*ed' }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ wildcard: 'ter*x' }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { state: [{ wildcard: 'term.nated' }] } }, event)).toBe(false);
  });

  it('should match numeric ranges', () => {
    expect(matchesPattern({ detail: { count: [{ numeric: ['>', 0, '<=', 5] }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { count: [{ numeric: ['<', 5] }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { state: [{ numeric: ['>', 0] }] } }, event)).toBe(false);
  });

  it('should match anything-but only when every value differs', () => {
    expect(matchesPattern({ detail: { state: [{ 'anything-but': 'running' }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { state: [{ 'anything-but': ['running', 'terminated'] }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { state: [{ 'anything-but': { prefix: 'term' } }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { tags: [{ 'anything-but': 'a' }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { absent: [{ 'anything-but': 'x' }] } }, event)).toBe(false);
  });

  it('should match when any $or alternative matches', () => {
    const pattern = { $or: [{ detail: { state: ['running'] } }, { detail: { count: [5] } }] };
    expect(matchesPattern(pattern, event)).toBe(true);
    expect(matchesPattern({ $or: [{ detail: { state: ['running'] } }, { source: ['x'] }] }, event)).toBe(false);
  });

  it('should throw on patterns it does not support instead of not matching', () => {
    expect(() => matchesPattern({ detail: { state: [{ cidr: '10.0.0.0/8' }] } }, event)).toThrow(PatternError);
    expect(() => matchesPattern({ detail: { state: [] } }, event)).toThrow(/non-empty array/);
    expect(() => matchesPattern({ detail: { state: 'terminated' } }, event)).toThrow(PatternError);
    expect(() => matchesPattern({ detail: { state: [{ prefix: 'a', suffix: 'b' }] } }, event)).toThrow(
      /exactly one key/,
    );
    expect(() => matchesPattern(['aws.ec2'], event)).toThrow(/must be an object/);
  });
});
