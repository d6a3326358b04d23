// "Did you mean …?" for a mistyped command or flag, as git and kubectl offer. Hand-written: a
// 20-line edit distance does not earn a dependency.

/** Levenshtein distance between two short words. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known words closest to `typed`: within two edits (one for words of up to four letters), or
 * starting with it; nearest first, at most three.
 */
export function closest(typed: string, known: readonly string[]): string[] {
  const limit = typed.length <= 4 ? 1 : 2;
  return known
    .map((word) => ({ word, d: word.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, word) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.word.localeCompare(b.word))
    .slice(0, 3)
    .map(({ word }) => word);
}

/** ` (did you mean X or Y?)`, or nothing. */
export function didYouMean(
  typed: string,
  known: readonly string[],
  spell: (word: string) => string = (w) => w,
): string {
  const near = closest(typed, known);
  return near.length === 0 ? '' : ` (did you mean ${near.map(spell).join(' or ')}?)`;
}
