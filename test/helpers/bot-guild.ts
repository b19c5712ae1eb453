import type { ParleyApp } from '../../src/app.setup';
import { createTestApp } from './app';
import { registerUser, type TestUser } from './factories';
import { addMember, createGuild, type TestGuild } from './guild-factories';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  MESSAGE_CONTENT_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from './oauth2-factories';
import { serverPort } from './ports';

/** What a guild bot is installed with: view, send, history, reactions, messages, roles, bans. */
export const GUILD_BOT_PERMISSIONS = String(
  (1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 6n) | (1n << 13n) | (1n << 28n) | (1n << 2n),
);

/** Two instances on one database and Redis, and a guild with an owner, a member and a bot. */
export interface BotGuild {
  rest: ParleyApp;
  gateway: ParleyApp;
  restPort: number;
  gatewayPort: number;
  owner: TestUser;
  member: TestUser;
  g: TestGuild;
  application: TestApplication;
  close(): Promise<void>;
}

/**
 * The set-up of the bot-library suites (test/bots/): a bot talks REST to `rest` and holds its
 * gateway connection on `gateway` (`GET /gateway/bot` names it); its owner enabled
 * MESSAGE_CONTENT and GUILD_MEMBERS and installed it with GUILD_BOT_PERMISSIONS.
 */
export async function botGuildOnTwoInstances(): Promise<BotGuild> {
  const [restPort, gatewayPort] = [await serverPort(), await serverPort()];
  const env = {
    REDIS_URL: process.env.TEST_REDIS_URL!,
    GATEWAY_URL: `ws://127.0.0.1:${gatewayPort}/gateway`,
    // Links (attachments) point at the REST instance, where the bots can fetch them.
    PUBLIC_URL: `http://127.0.0.1:${restPort}`,
  };
  const rest = await createTestApp({ env });
  const gateway = await createTestApp({ env });
  await rest.listen(restPort, '127.0.0.1');
  await gateway.listen(gatewayPort, '127.0.0.1');
  const [owner, member] = await Promise.all([registerUser(rest), registerUser(rest)]);
  const g = await createGuild(rest, owner.token);
  await addMember(rest, g.guildId, member.userId);
  const application = await createApplication(rest, owner);
  const flags = MESSAGE_CONTENT_INTENT_FLAG | MEMBERS_INTENT_FLAG;
  await setApplicationFlags(rest, owner, application, flags);
  await installBot(rest, owner, application, g.guildId, GUILD_BOT_PERMISSIONS);
  return {
    rest,
    gateway,
    restPort,
    gatewayPort,
    owner,
    member,
    g,
    application,
    close: async () => {
      await gateway.close();
      await rest.close();
    },
  };
}
