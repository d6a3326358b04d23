// The embedded demo (`npm start`). The sandbox simulation lands with the sandbox issue; until then
// this prints what the reconciler can already do, so `npm start` never crashes.
import { CONDITIONS } from '../model/condition.js';
import { SIGNAL_KINDS } from '../model/signal.js';
import { DEFAULT_SETTINGS } from '../settings.js';

const lines = [
  'ec2-node-reconciler — demo',
  '',
  'The sandbox simulation (a realistic cluster on emulated AWS and Kubernetes) is coming;',
  'what exists today is the decision core:',
  `  conditions: ${CONDITIONS.join(', ')}`,
  `  signals:    ${SIGNAL_KINDS.join(', ')}`,
  `  settings:   ${Object.entries(DEFAULT_SETTINGS).map(([k, v]) => `${k}=${String(v)}`).join(' ')}`,
  '',
  'Run `npm test` to exercise it.',
];
process.stdout.write(`${lines.join('\n')}\n`);
