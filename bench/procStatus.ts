// Memory and CPU of another process, read from Linux's /proc (the benches measure servers and
// browsers they run as child processes): resident set size now, its peak, and resetting that
// peak; CPU time so far and the parent, from a stat file.
import { readFileSync, writeFileSync } from 'node:fs';

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, in clock ticks of 1/100 s) and the parent's pid, from a stat file
 * (/proc/PID/stat, or /proc/PID/task/TID/stat for one thread); null when it cannot be read (gone,
 * not Linux). The command name (field 2) may hold spaces and ')': fields are read after the last.
 */
export function readProcStat(path: string): { cpuTicks: number; parent: number } | null {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpuTicks: Number(fields[11]) + Number(fields[12]), parent: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** The process's resident set size in bytes; null when it cannot be read (gone, not Linux). */
export const readRss = (pid: number) => statusField(pid, 'VmRSS');

/** The process's peak resident set size in bytes since it started or since resetPeakRss. */
export const readPeakRss = (pid: number) => statusField(pid, 'VmHWM');

/** Resets the peak (VmHWM) to the current RSS; false when the kernel refused. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts tracking a process's peak RSS from now: the kernel's peak after a reset, or, where
 * the kernel refuses the reset, RSS sampled every 10 ms (coarser: a peak can fall between
 * samples). `stop()` answers the growth in bytes over the RSS at the start.
 */
export function trackPeakRss(pid: number): { stop(): number } {
  const baseline = readRss(pid) ?? NaN;
  const peakReset = resetPeakRss(pid);
  let sampledPeak = baseline;
  const sampler = peakReset ? null : setInterval(() => (sampledPeak = Math.max(sampledPeak, readRss(pid) ?? 0)), 10);
  return {
    stop() {
      if (sampler) clearInterval(sampler);
      const peak = peakReset ? (readPeakRss(pid) ?? NaN) : sampledPeak;
      return peak - baseline;
    },
  };
}
