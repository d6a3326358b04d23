// Drain progress as a person sees it: one line updated in place on a terminal, a line per change elsewhere.
import { describe, expect, it } from 'vitest';
import { Progress, progressMode, type ProgressStream } from '../../cli/progress.js';

function stream(options: { isTTY?: boolean; columns?: number } = {}): ProgressStream & { text: string } {
  const out = {
    text: '',
    ...options,
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
  };
  return out;
}

describe('Progress', () => {
  it('should write a line only when it changed, when the output is not a terminal', () => {
    const out = stream();
    const progress = new Progress(out, 'plain');
    for (let pass = 0; pass < 130; pass++) progress.update('n1', 'n1: evicted 1, terminating 1, left 0');
    progress.update('n1', 'n1: evicted 1, terminating 0, left 0');
    progress.end('n1');
    progress.print('n1: drained');

    expect(out.text).toBe('n1: evicted 1, terminating 1, left 0\nn1: evicted 1, terminating 0, left 0\nn1: drained\n');
  });

  it('should keep one line updated in place on a terminal, cut to its width, and clear it at the end', () => {
    const out = stream({ isTTY: true, columns: 20 });
    const progress = new Progress(out, 'tty');
    progress.update('n1', 'n1: left 1');
    progress.update('n1', 'n1: left 1');
    progress.update('n1', 'n1: evicted 1, terminating 1, left 0');
    progress.end('n1');

    expect(out.text).toBe('\rn1: left 1\x1b[K\rn1: evicted 1, ter…\x1b[K\r\x1b[K');
  });

  it('should clear the updating line before a line that stays', () => {
    const out = stream({ isTTY: true });
    const progress = new Progress(out, 'tty');
    progress.update('n1', 'n1: left 1');
    progress.print('draining n2');
    progress.print('n2: drained');

    expect(out.text).toBe('\rn1: left 1\x1b[K\r\x1b[Kdraining n2\nn2: drained\n');
  });
});

describe('progressMode', () => {
  it('should update in place on a terminal only, unless asked for either', () => {
    expect(progressMode('auto', { isTTY: true }, {})).toBe('tty');
    expect(progressMode('auto', { isTTY: true }, { TERM: 'dumb' })).toBe('plain');
    expect(progressMode('auto', { isTTY: false }, {})).toBe('plain');
    expect(progressMode('auto', {}, {})).toBe('plain');
    expect(progressMode('tty', { isTTY: false }, {})).toBe('tty');
    expect(progressMode('plain', { isTTY: true }, {})).toBe('plain');
  });
});
