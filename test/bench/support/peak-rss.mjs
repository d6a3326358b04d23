// Preloaded (`node --import`) into a process a benchmark measures: its peak RSS (VmHWM, KiB) on stderr
// as it exits, a line `peak-rss-kib N`, whatever the process itself prints.
import { peakRssKiB } from './peak-rss-kib.mjs';

process.on('exit', () => process.stderr.write(`peak-rss-kib ${peakRssKiB()}\n`));
