// Preloaded (`node --import`) into a process a benchmark measures: its peak RSS (VmHWM, KiB) on stderr
// as it exits, a line `peak-rss-kib N`, whatever the process itself prints.
import { readFileSync } from 'node:fs';

function peakRssKiB() {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib !== undefined) return Number(kib);
  } catch {
    // no /proc: getrusage's figure will do
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => process.stderr.write(`peak-rss-kib ${peakRssKiB()}\n`));
