"""An unmodified discord.py ``commands.Bot`` doing the guild operations bots do every day
(test/bots/discordpy-guild.e2e-spec.ts runs it, with REST on one Parley instance and the gateway
on another).

Only the base URLs are set, as in discordpy_bot.py. Two people drive it the way a guild would: the
guild's owner and a plain member post commands through plain HTTP (aiohttp, which discord.py
brings) with their own tokens; the bot answers them from its command handlers. Every step prints
one JSON line; a step that raises reports an ``error`` line with its name and the script goes on.
Environment: PARLEY_API, PARLEY_GATEWAY, BOT_TOKEN, CHANNEL_ID, OWNER_TOKEN, MEMBER_TOKEN,
MEMBER_ID.
"""

import asyncio
import json
import os
import sys
import traceback

import aiohttp
import discord
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

API = os.environ["PARLEY_API"]
Route.BASE = API
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["PARLEY_GATEWAY"])
CHANNEL_ID = int(os.environ["CHANNEL_ID"])
MEMBER_ID = int(os.environ["MEMBER_ID"])


def report(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


intents = discord.Intents.default()
intents.message_content = True
intents.members = True
bot = commands.Bot(command_prefix="!", intents=intents)


@bot.command()
async def whoami(ctx):
    """Answers with the caller's roles and permissions, as a reply."""
    roles = sorted(str(r.id) for r in ctx.author.roles)
    perms = ctx.channel.permissions_for(ctx.author)
    await ctx.reply(json.dumps({"roles": roles, "manage_messages": perms.manage_messages}))


@bot.command()
@commands.has_permissions(manage_messages=True)
async def moderate(ctx):
    await ctx.reply("allowed")


@moderate.error
async def moderate_error(ctx, error):
    if isinstance(error, commands.MissingPermissions):
        await ctx.reply("denied: " + ",".join(error.missing_permissions))


async def as_user(session, token, content):
    """Posts a message as a user (not through discord.py): the guild's people using the bot."""
    url = f"{API}/channels/{CHANNEL_ID}/messages"
    async with session.post(url, json={"content": content}, headers={"Authorization": token}) as r:
        body = await r.json()
        if r.status >= 300:
            raise RuntimeError(f"posting as a user: {r.status} {body}")
        return int(body["id"])


async def answer_to(message_id):
    """The bot's reply to the message `message_id`, as its gateway delivers it."""
    return await bot.wait_for(
        "message",
        timeout=15,
        check=lambda m: m.author == bot.user
        and m.reference is not None
        and m.reference.message_id == message_id,
    )


async def step(name, run):
    try:
        await run()
    except Exception as exc:
        report("error", at=name, type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())


@bot.event
async def on_ready():
    try:
        await run_steps()
    finally:
        await bot.close()


async def run_steps():
    channel = bot.get_channel(CHANNEL_ID)
    guild = channel.guild
    report("ready", guild_id=str(guild.id), cached_members=len(guild.members))

    async def chunk():
        members = await asyncio.wait_for(guild.chunk(), timeout=15)
        report("chunked", count=len(members), chunked=guild.chunked, has_member=guild.get_member(MEMBER_ID) is not None)

    await step("chunk", chunk)

    async with aiohttp.ClientSession() as people:

        async def commands_step():
            asked = await as_user(people, os.environ["OWNER_TOKEN"], "!whoami")
            reply = await answer_to(asked)
            report("whoami", reply=json.loads(reply.content), type=reply.type.value)
            for who, token in (("owner", os.environ["OWNER_TOKEN"]), ("member", os.environ["MEMBER_TOKEN"])):
                asked = await as_user(people, token, "!moderate")
                reply = await answer_to(asked)
                report("moderate", who=who, reply=reply.content)

        await step("commands", commands_step)

    async def typing_step():
        async with channel.typing():
            await asyncio.sleep(0.2)
        report("typing", ok=True)

    await step("typing", typing_step)

    async def react_and_pin():
        message = await channel.send("react to me")
        await message.add_reaction("\N{THUMBS UP SIGN}")
        fetched = await channel.fetch_message(message.id)
        report("reacted", reactions=[[str(r.emoji), r.count, r.me] for r in fetched.reactions])
        await message.pin()
        pins = await channel.pins()
        report("pinned", ids=[str(m.id) for m in pins], message_id=str(message.id))
        await message.unpin()

    await step("react_and_pin", react_and_pin)

    async def purge():
        for i in range(3):
            await channel.send(f"to purge {i}")
        deleted = await channel.purge(limit=3, check=lambda m: m.author == bot.user)
        left = [m.content async for m in channel.history(limit=5)]
        report("purged", deleted=len(deleted), left=left)

    await step("purge", purge)

    async def roles():
        role = await guild.create_role(name="helpers", permissions=discord.Permissions(manage_messages=True))
        member = await guild.fetch_member(MEMBER_ID)
        await member.add_roles(role)
        again = await guild.fetch_member(MEMBER_ID)
        report("roles", role_id=str(role.id), member_roles=sorted(str(r.id) for r in again.roles))
        await again.remove_roles(role)
        await role.delete()

    await step("roles", roles)

    async def ban():
        member = await guild.fetch_member(MEMBER_ID)
        await guild.ban(member, reason="testing bans")
        banned = [entry async for entry in guild.bans()]
        report("banned", users=[str(e.user.id) for e in banned], reasons=[e.reason for e in banned])
        await guild.unban(discord.Object(MEMBER_ID))
        after = [entry async for entry in guild.bans()]
        report("unbanned", users=[str(e.user.id) for e in after])

    await step("ban", ban)
    report("done")


async def main():
    try:
        await asyncio.wait_for(bot.start(os.environ["BOT_TOKEN"]), timeout=90)
    except Exception as exc:
        report("error", at="start", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
        sys.exit(1)


asyncio.run(main())
