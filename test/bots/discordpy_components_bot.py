"""An unmodified discord.py client sending a ``discord.ui.View`` with a button and a select menu
(test/bots/components.e2e-spec.ts runs it). Only the base URLs are set, as in discordpy_bot.py.
Every step prints one JSON line; a step that raises reports an ``error`` line.
Environment: PARLEY_API, PARLEY_GATEWAY, BOT_TOKEN, CHANNEL_ID.
"""

import json
import os
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


def components_of(message):
    """The message's components as discord.py parsed them, back in Discord's shape."""
    return [row.to_dict() for row in message.components]


class Menu(discord.ui.View):
    @discord.ui.button(label="Approve", style=discord.ButtonStyle.success, custom_id="approve", emoji="\N{WHITE HEAVY CHECK MARK}")
    async def approve(self, interaction, button):
        pass

    @discord.ui.select(custom_id="colour", placeholder="Pick a colour", options=[
        discord.SelectOption(label="Red", value="red", description="Warm"),
        discord.SelectOption(label="Blue", value="blue", default=True),
    ])
    async def colour(self, interaction, select):
        pass


client = discord.Client(intents=discord.Intents.default())


@client.event
async def on_ready():
    try:
        channel = client.get_channel(CHANNEL_ID)
        view = Menu()
        view.add_item(discord.ui.Button(label="Docs", url="https://parley.example/docs"))
        sent = await channel.send("choose", view=view)
        report("sent", id=str(sent.id), components=components_of(sent))
        fetched = await channel.fetch_message(sent.id)
        report("fetched", components=components_of(fetched))
        other = await channel.send("choose again", view=Menu())
        edited = await other.edit(content="chosen", view=None)
        report("cleared", id=str(other.id), components=components_of(edited))
    except Exception as exc:
        report("error", type=type(exc).__name__, message=str(exc), trace=traceback.format_exc())
    finally:
        report("done")
        await client.close()


client.run(os.environ["BOT_TOKEN"], log_handler=None)
