import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLAGS } from './node-flags';

const root = join(__dirname, '..');

describe('the Node options production starts with', () => {
  it('are the ones package.json and the Docker image pass', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const command = ['node', ...NODE_FLAGS, 'dist/src/main.js'];
    expect(scripts['start:prod']).toBe(command.join(' '));
    expect(scripts.start).toBe(`nest build && ${command.join(' ')}`);
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const cmd = dockerfile.split('\n').filter((l) => l.startsWith('CMD '));
    expect(cmd).toEqual([`CMD ${JSON.stringify(command).replace(/","/g, '", "')}`]);
  });
});
