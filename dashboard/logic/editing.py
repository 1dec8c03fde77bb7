"""Who may edit the topics on this server, and the name a browser session goes by in the edit history (pure).

Editing (rename, merge, move, undo) changes the build for everyone who opens it. It is on when the server
listens on this machine only (a loopback address), and off on any address other machines can reach unless
the server was started with `--allow-edits` (the launcher sets `ALLOW_EDITS_ENV`). The app decides from the
address it serves, so `streamlit run dashboard/app.py --server.address 0.0.0.0` is read-only too.
"""

from __future__ import annotations

import hashlib

from topic_explorer.dashboard.launch import is_loopback

# 64 x 64 short, plain words: 4,096 names, enough to tell a reading group's sessions apart at a glance
ADJECTIVES = (
    "amber azure bold brave brisk calm clever coral crisp dapper eager early fair fancy gentle glad golden "
    "grand green happy hazel honest jolly keen kind lively lucky lunar mellow merry mild misty modest neat "
    "noble olive plain polite proud quick quiet rapid rosy royal ruby rustic sandy sharp shiny silver sleek "
    "smart snowy solar spry steady sunny swift tidy topaz vivid warm wise witty"
).split()
ANIMALS = (
    "badger beaver bison camel cheetah cobra condor crane dingo dolphin eagle egret falcon ferret finch "
    "gazelle gecko gibbon heron hippo ibis jackal jaguar koala lemur leopard lynx magpie marmot marten "
    "meerkat mole moose newt ocelot okapi orca osprey otter owl panda parrot pelican penguin puffin quail "
    "rabbit raven robin salmon seal shrew sparrow stork swan tapir tiger toucan turtle walrus whale "
    "wombat yak zebra"
).split()


def edits_allowed(address: str | None, allow_edits: bool) -> bool:
    """Editing is on for a server on this machine only, or for any server started with `--allow-edits`.

    No address (Streamlit's default) means every address of the machine: reachable by others, so off.
    """
    return allow_edits or (bool(address) and is_loopback(str(address)))


def session_name(session_id: str) -> str:
    """Two words derived from a browser session's id ('amber falcon'): the same session, the same name."""
    digest = hashlib.sha256(session_id.encode("utf-8")).digest()
    return f"{ADJECTIVES[digest[0] % len(ADJECTIVES)]} {ANIMALS[digest[1] % len(ANIMALS)]}"


def read_only_note(address: str | None) -> str:
    """Why the edit controls are missing, and how to turn them on."""
    where = f"on {address}" if address else "on every address of this machine"
    return (
        f"Editing is off: this server listens {where}, where other machines can reach it. Anyone can read and "
        "export; nobody can rename, merge or move topics. Start it with --allow-edits to let everyone edit, or on "
        "localhost to edit alone."
    )
