import type { ParleyApp } from '../../src/app.setup';
import { http, unique } from './app';

export interface TestUser {
  token: string;
  userId: string;
  email: string;
  password: string;
  username: string;
}

/** Registers a fresh user through the public API and returns its session. */
export async function registerUser(
  app: ParleyApp,
  overrides: Record<string, unknown> = {},
): Promise<TestUser> {
  const username = unique('u_').slice(0, 32);
  const body = {
    consent: true,
    date_of_birth: '1990-01-01',
    email: `${username}@example.com`,
    password: 'correct-horse-battery',
    username,
    ...overrides,
  };
  const res = await http(app).post('/v1/auth/register').send(body);
  if (res.status !== 200)
    throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    token: res.body.token as string,
    userId: res.body.user_id as string,
    email: body.email,
    password: body.password,
    username: body.username,
  };
}
