"""An unmodified discord.py client sending files (test/bots/discordpy-files.e2e-spec.ts runs it,
with REST on one Parley instance and the gateway on another).

Only the base URLs are set, as in discordpy_bot.py. Every step prints one JSON line; a step that
raises reports an ``error`` line with its name. Environment: PARLEY_API, PARLEY_GATEWAY,
BOT_TOKEN, CHANNEL_ID.
"""

import base64
import io
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

# A 2x3 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR42mP8z8DwnwEIGBgYAAAv8gP9Zq7dWQAAAABJRU5ErkJggg=="
)


def report(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


client = discord.Client(intents=discord.Intents.default())


async def steps():
    channel = client.get_channel(CHANNEL_ID) or await client.fetch_channel(CHANNEL_ID)
    data = b"hello from discord.py\n"
    sent = await channel.send(
        "a file", file=discord.File(io.BytesIO(data), filename="hello.txt", description="greeting")
    )
    a = sent.attachments[0]
    body = await a.read()
    report(
        "sent",
        content=sent.content,
        filename=a.filename,
        description=a.description,
        content_type=a.content_type,
        size=a.size,
        same_bytes=body == data,
    )
    two = await channel.send(
        files=[
            discord.File(io.BytesIO(PNG), filename="pic.png"),
            discord.File(io.BytesIO(b"x" * 1000), filename="hidden.bin", spoiler=True),
        ]
    )
    pic, hidden = two.attachments
    report(
        "files",
        names=[x.filename for x in two.attachments],
        width=pic.width,
        height=pic.height,
        spoiler=[x.is_spoiler() for x in two.attachments],
        png_bytes=(await pic.read()) == PNG,
    )
    edited = await two.edit(attachments=[pic])
    report("edited", names=[x.filename for x in edited.attachments])


@client.event
async def on_ready():
    try:
        await steps()
    except Exception:
        report("error", trace=traceback.format_exc())
    finally:
        report("done")
        await client.close()


client.run(os.environ["BOT_TOKEN"], log_handler=None)
