// A benchmarked process's own peak RSS, for peak-rss.mjs (preloaded) and handler-child.mjs.
import { readFileSync } from 'node:fs';

/**
 * Peak RSS of this process's own memory. getrusage's maxRSS is not it on Linux: it keeps the high
 * water mark of the memory the process had before it exec'd Node, a fork of the parent (the whole
 * bench process, a GiB after the other benchmarks); /proc's VmHWM counts only this image.
 */
export function peakRssKiB() {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib !== undefined) return Number(kib);
  } catch {
    // no /proc: getrusage's figure will do
  }
  return process.resourceUsage().maxRSS;
}
