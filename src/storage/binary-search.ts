// The one binary search of storage: index files, segment lookup and recent batch positions all ask for the
// last element of a sorted sequence that is at or below a target.

/** The largest i in [lo, hi] for which holds(i), given holds is true on a prefix of [lo, hi]; lo - 1 when none. */
export function lastIndexWhere(lo: number, hi: number, holds: (i: number) => boolean): number {
  let found = lo - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (holds(mid)) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
