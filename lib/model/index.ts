export * from './instance-id.js';
export * from './provider-id.js';
export * from './duration.js';
export * from './clock.js';
export * from './signal.js';
export * from './observation.js';
export * from './condition.js';
export * from './action.js';
