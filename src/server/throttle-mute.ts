// A connection's mute for a client quota's throttle time (KIP-219): while muted, the connection reads
// nothing, so a client over its quota waits rather than having its requests refused. A throttle ending
// later than the current one extends the mute; one ending earlier changes nothing.

export class ThrottleMute {
  private timer: NodeJS.Timeout | null = null;
  private until = 0;

  get muted(): boolean {
    return this.timer !== null;
  }

  /** Mutes for `ms` from now; `unmuted` runs when the mute ends (not after cancel()). */
  mute(ms: number, unmuted: () => void): void {
    const until = Date.now() + ms;
    if (until <= this.until) return;
    this.until = until;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      unmuted();
    }, ms);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
