/**
 * Linux /proc readings of the processes the bench started: CPU time, RSS, proportional set size,
 * and the process tree below a pid (the embedded PostgreSQL server and its backends are
 * children of the API process). Readings of a process that has gone return undefined.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      ticksPerSecond = 100;
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parens). */
function statFields(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds the process has used so far (all its threads). */
export function cpuSeconds(pid: number): number | undefined {
  const f = statFields(pid);
  // After the name: state(0) ppid(1) … utime(11) stime(12), in clock ticks.
  if (!f) return undefined;
  return (Number(f[11]) + Number(f[12])) / clockTicks();
}

/** A `Name:   123 kB` line of /proc/<pid>/status (VmRSS, VmHWM…), in bytes. */
export function statusBytes(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Proportional set size in bytes (smaps_rollup `Pss:`): shared pages divided among the processes
 * mapping them, so summing it over a process tree counts PostgreSQL's shared buffers once.
 */
export function pssBytes(pid: number): number | undefined {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** Every live descendant of `root` (children, their children…), found through each process's ppid. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (!Number.isInteger(ppid)) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface TreeMemory {
  /** PSS of the root process. */
  rootPss: number;
  /** PSS summed over its descendants, and how many there are. */
  childrenPss: number;
  children: number;
  /** Descendants by command name, e.g. { postgres: 9 }. */
  childNames: Record<string, number>;
}

/** PSS of a process and of everything below it. */
export function treeMemory(root: number): TreeMemory {
  const kids = descendants(root);
  const childNames: Record<string, number> = {};
  let childrenPss = 0;
  for (const pid of kids) {
    childrenPss += pssBytes(pid) ?? 0;
    const name = commandName(pid);
    childNames[name] = (childNames[name] ?? 0) + 1;
  }
  return { rootPss: pssBytes(root) ?? 0, childrenPss, children: kids.length, childNames };
}
