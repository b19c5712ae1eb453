/** What the gateway benches ask of the API under test: JSON over fetch, and a user in a guild. */

/** `url` fetched with a JSON body; its JSON answer, or an error naming the status. */
export async function json<T>(
  url: string,
  init: RequestInit & { expect?: number } = {},
): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  const text = await res.text();
  if (res.status !== (init.expect ?? 200)) throw new Error(`${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Registers a fresh user on `base` and makes it a guild named `guild`; its token and guild. */
export async function userWithGuild(
  base: string,
  prefix: string,
  guild: string,
): Promise<{ token: string; guildId: string }> {
  const name = `${prefix}_${Date.now().toString(36)}`;
  const { token } = await json<{ token: string }>(`${base}/v1/auth/register`, {
    method: 'POST',
    body: JSON.stringify({
      consent: true,
      date_of_birth: '1990-01-01',
      email: `${name}@bench.invalid`,
      password: 'correct-horse-battery-staple',
      username: name,
    }),
  });
  const { id } = await json<{ id: string }>(`${base}/v1/guilds`, {
    method: 'POST',
    headers: { authorization: token },
    body: JSON.stringify({ name: guild }),
    expect: 201,
  });
  return { token, guildId: id };
}
