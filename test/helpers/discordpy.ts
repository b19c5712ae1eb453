import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's interpreter, which has Debian's `python3-discord` (discord.py 2.2). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/** One JSON line a bot script under test/bots printed. */
export type BotReport = { step: string } & Record<string, unknown>;

/**
 * Runs `test/bots/<script>` with the system Python and resolves with every JSON line it printed
 * (its exit code and stderr with them, for the assertion messages). The bot is unmodified
 * discord.py: the script sets only its base URL. Fails at once, saying what to install, when
 * discord.py is missing.
 */
export async function runDiscordPy(
  script: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<{ reports: BotReport[]; code: number | null; stderr: string }> {
  if (!existsSync(SYSTEM_PYTHON)) throw new Error(`${SYSTEM_PYTHON} is missing`);
  const child = spawn(SYSTEM_PYTHON, [join(__dirname, '..', 'bots', script)], {
    env: { ...process.env, ...env, PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (/No module named 'discord'/.test(stderr)) {
    throw new Error('discord.py is not installed: apt-get install python3-discord');
  }
  const reports = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as BotReport);
  return { reports, code, stderr };
}

/** The report of `step` (throws with everything the bot said when there is none). */
export function reportOf(run: { reports: BotReport[]; stderr: string }, step: string): BotReport {
  const found = run.reports.find((r) => r.step === step);
  if (!found) {
    throw new Error(
      `discord.py reported no "${step}": ${JSON.stringify(run.reports)}\n${run.stderr.slice(-4000)}`,
    );
  }
  return found;
}
