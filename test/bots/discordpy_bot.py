"""An unmodified discord.py bot pointed at Parley (test/bots/discordpy.e2e-spec.ts runs it).

Only the base URLs are set, as a bot's owner would: ``Route.BASE`` for REST and, because
discord.py 2.2's ``Client`` connects to its built-in gateway address without asking
``/gateway/bot``, ``DiscordWebSocket.DEFAULT_GATEWAY``. The script logs in, waits for
``on_ready``, runs the steps the spec asks for and prints one JSON line per result on stdout, then
closes. Environment: PARLEY_API (``http://127.0.0.1:<port>/api/v10``), PARLEY_GATEWAY
(``ws://127.0.0.1:<port>/gateway``), BOT_TOKEN, CHANNEL_ID; MODE=burst runs only the burst of
messages beyond the rate limit.
"""

import asyncio
import json
import logging
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
        if os.environ.get("MODE") == "burst":
            return await self.burst()
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
        owner = await channel.guild.fetch_member(app.owner.id)
        user = await self.fetch_user(app.owner.id)
        report(
            "fetched",
            member_id=str(owner.id),
            member_roles=[str(r.id) for r in owner.roles],
            joined=owner.joined_at is not None,
            user_name=user.name,
        )
        sent = await channel.send("hello from discord.py")
        fetched = await channel.fetch_message(sent.id)
        report("sent", id=str(sent.id), content=fetched.content, author_id=str(fetched.author.id))
        answer = await fetched.reply("a reply")
        report(
            "replied",
            type=answer.type.value,
            reference=str(answer.reference.message_id),
            resolved=answer.reference.resolved.content,
        )
        await answer.delete()
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


    async def burst(self):
        """Six messages at once from two HTTP clients of the same bot (as two processes of one
        bot would), more than the bot's rate limit lets through: neither knows what the other
        spent, so 429s come; discord.py must wait each out (it does only for a 429 it believes
        is the API's, not a proxy's) and send every message."""
        channel = self.get_channel(CHANNEL_ID)
        other = discord.http.HTTPClient(asyncio.get_running_loop())
        await other.static_login(os.environ["BOT_TOKEN"])
        route = lambda: Route("POST", "/channels/{channel_id}/messages", channel_id=CHANNEL_ID)
        try:
            sent = await asyncio.gather(
                *(channel.send(f"burst {i}") for i in range(3)),
                *(other.request(route(), json={"content": f"burst {i}"}) for i in range(3, 6)),
            )
        finally:
            await other.close()
        report("burst", sent=len(sent), rate_limited=RATE_LIMITED.count)


class CountRateLimits(logging.Handler):
    """Counts discord.py's "We are being rate limited" warnings (one per 429 it waits out)."""

    count = 0

    def emit(self, record):
        if "rate limited" in record.getMessage():
            CountRateLimits.count += 1


RATE_LIMITED = CountRateLimits()
logging.getLogger("discord.http").addHandler(RATE_LIMITED)


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
