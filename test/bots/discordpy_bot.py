"""An unmodified discord.py bot pointed at Parley (test/bots/discordpy.e2e-spec.ts runs it).

Only the base URLs are set, as a bot's owner would: ``Route.BASE`` for REST and, because
discord.py 2.2's ``Client`` connects to its built-in gateway address without asking
``/gateway/bot``, ``DiscordWebSocket.DEFAULT_GATEWAY``. The script logs in, waits for
``on_ready``, runs the steps the spec asks for and prints one JSON line per result on stdout, then
closes. Environment: PARLEY_API (``http://127.0.0.1:<port>/api/v10``), PARLEY_GATEWAY
(``ws://127.0.0.1:<port>/gateway``), BOT_TOKEN, CHANNEL_ID.
"""

import asyncio
import json
import os
import sys
import traceback

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

Route.BASE = os.environ["PARLEY_API"]
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["PARLEY_GATEWAY"])
CHANNEL_ID = int(os.environ["CHANNEL_ID"])


def report(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


class Bot(discord.Client):
    async def on_ready(self):
        try:
            await self.run_steps()
        except Exception as exc:  # reported, then the test fails on the missing steps
            report("error", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
        finally:
            await self.close()

    async def run_steps(self):
        app = await self.application_info()
        report(
            "ready",
            user_id=str(self.user.id),
            bot=self.user.bot,
            application_id=str(app.id),
            owner_id=str(app.owner.id),
            verify_key=app.verify_key,
            guilds=[
                {"id": str(g.id), "channels": sorted(c.name for c in g.channels)}
                for g in self.guilds
            ],
        )
        channel = self.get_channel(CHANNEL_ID)
        sent = await channel.send("hello from discord.py")
        fetched = await channel.fetch_message(sent.id)
        report("sent", id=str(sent.id), content=fetched.content, author_id=str(fetched.author.id))
        edited = await sent.edit(content="edited by discord.py")
        report("edited", content=edited.content)
        await sent.delete()
        try:
            await channel.fetch_message(sent.id)
            report("deleted", found=True)
        except discord.NotFound as exc:
            report("deleted", found=False, status=exc.status, code=exc.code)
        try:
            await channel.send("x" * 2001)
            report("invalid", raised=False)
        except discord.HTTPException as exc:
            report("invalid", raised=True, status=exc.status, code=exc.code, text=exc.text)


async def main():
    intents = discord.Intents.default()
    intents.message_content = True
    bot = Bot(intents=intents)
    try:
        await asyncio.wait_for(bot.start(os.environ["BOT_TOKEN"]), timeout=60)
    except Exception as exc:
        report("error", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
        sys.exit(1)


asyncio.run(main())
