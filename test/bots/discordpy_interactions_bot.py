"""An unmodified discord.py bot living on application commands, as bots written since 2022 do:
``tree.sync(guild=...)`` in ``setup_hook``, a slash command with choices answered with
``send_message``, one answered with ``defer`` + ``followup.send``, a ``discord.ui.View`` with a
button, and a ``discord.ui.Modal`` (test/bots/discordpy-interactions.e2e-spec.ts invokes them as a
member and watches the answers). Every step prints one JSON line; the bot leaves once the modal
was submitted. Environment: PARLEY_API, PARLEY_GATEWAY, BOT_TOKEN, GUILD_ID, CHANNEL_ID.
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
CHANNEL_ID = int(os.environ["CHANNEL_ID"])


def report(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


class Bot(commands.Bot):
    async def setup_hook(self):
        synced = await self.tree.sync(guild=GUILD)
        report("synced", names=sorted(c.name for c in synced))


bot = Bot(command_prefix="!", intents=discord.Intents.default())


@bot.tree.command(name="greet", description="Greets someone", guild=GUILD)
@app_commands.describe(who="Whom to greet")
async def greet(interaction: discord.Interaction, who: Literal["Alice", "Bob"]):
    await interaction.response.send_message(f"hello {who}")
    report("greet", who=who, user=str(interaction.user.id))


@bot.tree.command(name="slow", description="Answers later", guild=GUILD)
async def slow(interaction: discord.Interaction):
    await interaction.response.defer()
    await asyncio.sleep(0.2)
    message = await interaction.followup.send("slow done", wait=True)
    report("slow", followup=str(message.id))


class Confirm(discord.ui.View):
    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.success)
    async def confirm(self, interaction: discord.Interaction, button: discord.ui.Button):
        await interaction.response.edit_message(content="confirmed", view=None)
        report("clicked", user=str(interaction.user.id), message=str(interaction.message.id))
        self.stop()


@bot.tree.command(name="confirm", description="Asks with a button", guild=GUILD)
async def confirm(interaction: discord.Interaction):
    await interaction.response.send_message("confirm?", view=Confirm(timeout=30))


class Feedback(discord.ui.Modal, title="Feedback"):
    answer = discord.ui.TextInput(label="Your answer", custom_id="answer")

    async def on_submit(self, interaction: discord.Interaction):
        await interaction.response.send_message(f"got {self.answer.value}")
        report("submitted", value=self.answer.value)
        asyncio.get_running_loop().call_later(0.5, lambda: asyncio.ensure_future(bot.close()))


@bot.tree.command(name="form", description="Shows a modal", guild=GUILD)
async def form(interaction: discord.Interaction):
    await interaction.response.send_modal(Feedback())


@bot.tree.error
async def on_app_command_error(interaction, error):
    report("error", type=type(error).__name__, message=str(error))


@bot.event
async def on_ready():
    report("ready", application_id=str(bot.application_id))
    await bot.get_partial_messageable(CHANNEL_ID).send("py-ready")


async def main():
    try:
        await asyncio.wait_for(bot.start(os.environ["BOT_TOKEN"]), timeout=80)
    except Exception as exc:
        report("error", at="start", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
        sys.exit(1)


asyncio.run(main())
