// The progress line of a long produce or consume: on stderr, rewritten in place at most a few times a
// second, and only when stdout is a terminal (a script reading stdout or a file gets none).
export class Progress {
  private last = 0;
  private shown = false;
  private readonly enabled = process.stdout.isTTY === true && process.stderr.isTTY === true;

  constructor(private readonly verb: string) {}

  update(records: number, bytes: number): void {
    const now = Date.now();
    if (!this.enabled || now - this.last < 250) return;
    this.last = now;
    this.shown = true;
    process.stderr.write(`\r${this.verb} ${records} records, ${(bytes / 1024 / 1024).toFixed(1)} MiB\u001b[K`);
  }

  done(): void {
    if (this.shown) process.stderr.write('\r\u001b[K');
  }
}
