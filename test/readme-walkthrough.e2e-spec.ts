import type { ParleyApp } from '../src/app.setup';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestApp, unique } from './helpers/app';

const README = join(__dirname, '..', 'README.md');
const BEGIN = '<!-- first-five-minutes:begin -->';
const END = '<!-- first-five-minutes:end -->';

/** The ```sh block between the README's first-five-minutes markers, as a reader copies it. */
function readmeBlock(): string {
  const text = readFileSync(README, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${BEGIN} … ${END} markers`);
  const fenced = /^```sh\n([\s\S]*?)^```\s*$/m.exec(text.slice(from + BEGIN.length, to));
  if (!fenced) throw new Error('no ```sh block between the first-five-minutes markers');
  return fenced[1];
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `bash -euo pipefail -c <script>` with only PATH, HOME and `env`, no rc files and stdin closed:
 * nothing of this machine's shell set-up leaks in (bash reads bashrc when its stdin is a socket,
 * as Node's pipes are, hence --norc).
 */
function bash(script: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      'bash',
      ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          ...env,
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/**
 * README.md's "First five minutes" is a curl walkthrough (register, guild, channel, webhook, a
 * GitHub push to /repohost, the message read back). It runs here verbatim against the real app,
 * so the README cannot rot: a wrong path, field or header fails the block (curl -f, pipefail).
 */
describe('README "First five minutes" (the curl block, run by bash)', () => {
  let app: ParleyApp;
  let base: string;

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    const tools = await bash('command -v curl && command -v jq', {});
    if (tools.code !== 0) throw new Error('the README walkthrough needs curl and jq on PATH');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('defaults BASE to the Quick start address, so the block pastes as is', () => {
    expect(readmeBlock()).toMatch(/^BASE=\$\{BASE:-http:\/\/localhost:8080\}$/m);
  });

  it('runs to the end and prints the embed title the README promises', async () => {
    const email = `${unique('readme_')}@example.com`;
    const run = await bash(readmeBlock(), { BASE: base, EMAIL: email });
    expect(run).toEqual({ code: 0, stdout: '[ada/engine:main] 1 new commit\n', stderr: '' });
    // The prose above the block quotes the same output.
    expect(readFileSync(README, 'utf8')).toContain('`[ada/engine:main] 1 new commit`');

    // The account the block registered logs in with the README's password.
    const login = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    });
    expect(login.status).toBe(200);
  });

  it('fails when a route in the block is wrong (so a rotten README fails this suite)', async () => {
    const rotten = readmeBlock().replaceAll('/repohost"', '/repohots"');
    expect(rotten).not.toBe(readmeBlock());
    const run = await bash(rotten, { BASE: base, EMAIL: `${unique('readme_')}@example.com` });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('404');
    expect(run.stdout).toBe('');
  });
});
