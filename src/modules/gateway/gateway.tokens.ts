/** The shared gateway session store (RedisSessionStore), or null without REDIS_URL. */
export const GATEWAY_SESSION_STORE = Symbol('GATEWAY_SESSION_STORE');
