"""An unmodified discord.py ``commands.Bot`` registering application commands the way slash-command
bots do: ``tree.sync()`` and ``tree.sync(guild=...)`` in ``setup_hook``, before the gateway
connection (test/bots/discordpy-commands.e2e-spec.ts runs it). On Discord a failing sync raises
and aborts the login; here every step prints one JSON line and the bot logs in to the end.
Environment: PARLEY_API, PARLEY_GATEWAY, BOT_TOKEN, GUILD_ID.
"""

import asyncio
import json
import os
import sys
import traceback
from typing import Literal

import discord
import yarl
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

Route.BASE = os.environ["PARLEY_API"]
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["PARLEY_GATEWAY"])
GUILD = discord.Object(id=int(os.environ["GUILD_ID"]))


def report(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


def described(cmds):
    return sorted(
        [{"name": c.name, "type": c.type.value, "options": [o.name for o in c.options]} for c in cmds],
        key=lambda c: c["name"],
    )


class Bot(commands.Bot):
    async def setup_hook(self):
        try:
            synced = await self.tree.sync()
            report("global", commands=described(synced))
            local = await self.tree.sync(guild=GUILD)
            report("guild", commands=described(local))
            fetched = await self.tree.fetch_commands()
            report("fetched", names=sorted(c.name for c in fetched))
            paint = next(c for c in fetched if c.name == "paint")
            colour = paint.options[0]
            report(
                "paint",
                permissions=paint.default_member_permissions.value,
                choices=[c.value for c in colour.choices],
                coats=[paint.options[1].min_value, paint.options[1].max_value],
            )
        except Exception as exc:
            report("error", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())


bot = Bot(command_prefix="!", intents=discord.Intents.default())


@bot.tree.command(name="ping", description="Replies with pong")
async def ping(interaction: discord.Interaction):
    await interaction.response.send_message("pong")


@bot.tree.command(name="paint", description="Paints something")
@app_commands.describe(colour="Which colour", coats="How many coats")
@app_commands.default_permissions(manage_messages=True)
async def paint(
    interaction: discord.Interaction,
    colour: Literal["red", "blue"],
    coats: app_commands.Range[int, 1, 5] = 1,
):
    await interaction.response.send_message(f"{coats} x {colour}")


class Tag(app_commands.Group):
    """Tags"""

    @app_commands.command(description="Add a tag")
    async def add(self, interaction: discord.Interaction, text: str):
        await interaction.response.send_message(text)


bot.tree.add_command(Tag(name="tag"))


@bot.tree.context_menu(name="High Five")
async def high_five(interaction: discord.Interaction, member: discord.Member):
    await interaction.response.send_message("o/")


@bot.tree.command(name="local", description="Only in this guild", guild=GUILD)
async def local(interaction: discord.Interaction):
    await interaction.response.send_message("here")


@bot.event
async def on_ready():
    report("ready", application_id=str(bot.application_id))
    await bot.close()


async def main():
    try:
        await asyncio.wait_for(bot.start(os.environ["BOT_TOKEN"]), timeout=60)
    except Exception as exc:
        report("error", at="start", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
        sys.exit(1)


asyncio.run(main())
