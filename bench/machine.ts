// What the machine itself does, read from /proc and timed without any broker: a process's CPU time and
// RSS, how busy all cores were, and how long the page cache takes to take new data.

import fs from 'node:fs';
import path from 'node:path';
import { sleep } from './processes.js';

/** utime + stime of a process in seconds (/proc/<pid>/stat, USER_HZ = 100 on Linux), or null. */
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The machine's CPU time so far, all cores, in ticks: busy and total (/proc/stat), or null. */
export function machineCpuTicks(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const t = line.trim().split(/\s+/).slice(1).map(Number); // user nice system idle iowait irq softirq steal ...
    const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - t[3] - t[4], total };
  } catch {
    return null;
  }
}

export function busyShare(a: { busy: number; total: number }, b: { busy: number; total: number }): number | undefined {
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : undefined;
}

export function readRssKb(pid: number): number | null {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Wall time of writing `bytes` of new data to a fresh file in `dir` with 1 MB write() calls, no fsync:
 * what any broker that keeps the records on disk pays at least, and the mock does not (it keeps them in
 * memory). Taken after `idleMs` without allocating: on a virtual machine that hands freed memory back to
 * its host, page-cache pages touched after an idle spell cost several times more than pages just freed
 * and reused, and the gap varies from machine to machine, so both states are measured and reported.
 */
export async function pageCacheWriteMs(dir: string, bytes: number, idleMs: number): Promise<number> {
  await sleep(idleMs);
  const chunk = Buffer.alloc(1 << 20, 0x61);
  const file = path.join(dir, 'page-cache-probe');
  const fd = fs.openSync(file, 'w');
  const t0 = performance.now();
  try {
    for (let done = 0; done < bytes; done += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - done));
  } finally {
    fs.closeSync(fd);
  }
  const ms = performance.now() - t0;
  fs.rmSync(file, { force: true });
  return ms;
}
