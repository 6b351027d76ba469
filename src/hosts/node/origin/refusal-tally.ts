// The origin's refused requests, counted by reason and logged as one line per interval: a stranger
// knocking thousands of times writes one line a minute, not one line each.

export class RefusalTally {
  private readonly counts = new Map<string, number>();
  private total = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly intervalMs: number,
    private readonly writeLine: (text: string) => void,
  ) {
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Counts one refused request under `reason` (a short phrase: "bad signature", "unsigned"). */
  count(reason: string): void {
    this.total += 1;
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
  }

  /** Logs what was refused since the last line, if anything. */
  flush(): void {
    if (this.total === 0) return;
    const reasons = [...this.counts]
      .sort((a, b) => b[1] - a[1])
      .map(([reason, count]) => `${count.toLocaleString('en-US')} ${reason}`)
      .join(', ');
    const seconds = Math.round(this.intervalMs / 100) / 10;
    this.writeLine(
      `refused ${this.total.toLocaleString('en-US')} request${this.total === 1 ? '' : 's'} in the last ${seconds} s (${reasons})`,
    );
    this.counts.clear();
    this.total = 0;
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
