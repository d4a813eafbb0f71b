"""``niwa bot from-policy``: a saved linear policy (train.py --save) becomes a bot folder."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from niwa import engine
from niwa.adapters import features
from niwa.errors import CommandError

#: The saved-policy layouts this command reads (docs/rl.md, "Saving a trained policy").
POLICY_FORMATS = (1,)

MAIN = '''"""A linear softmax policy over niwa's hashed features, made by `niwa bot from-policy`."""

import json

import numpy as np

from niwa.adapters import features
from niwa.adapters.spaces import action_space
from niwa.bots.sdk import GameStart, Reply, Turn, serve

saved = np.load("policy.npz")
META = json.loads(str(saved["meta"]))


class LinearPolicyBot:
    def start(self, game: GameStart) -> None:
        if features.ENCODER_VERSION != META["encoder_version"]:
            raise RuntimeError("the encoder changed since this policy was trained")
        self.codec = action_space(game.game, game.players).actions
        if len(self.codec) != META["actions"]:
            raise RuntimeError(
                f"{game.game} at {game.players} players has {len(self.codec)} actions here;"
                f" this policy was trained on {META['actions']}: train it again"
            )

    def act(self, turn: Turn) -> Reply:
        x = features.encode(turn.observation, META["features"]).astype(np.float64)
        x = np.sign(x) * np.log1p(np.abs(x))
        rows = [self.codec.index(a) for a in turn.legal_actions]
        logits = saved["w"][rows] @ x + saved["b"][rows]
        return Reply(index=int(np.argmax(logits)))


if __name__ == "__main__":
    serve(LinearPolicyBot())
'''


def read_policy(path: Path) -> dict[str, Any]:
    """The policy's metadata, or a CommandError naming what is wrong and the fix."""
    try:
        with np.load(path) as saved:
            meta: dict[str, Any] = json.loads(str(saved["meta"]))
            shape = saved["w"].shape
    except (OSError, ValueError, KeyError) as e:
        raise CommandError(
            f"{path} is not a saved policy ({e}): make one with"
            " examples/rl-training/train.py --save policy.npz"
        ) from None
    if meta.get("format") not in POLICY_FORMATS:
        raise CommandError(
            f"{path} has policy format {meta.get('format')}; this niwa reads {POLICY_FORMATS}"
        )
    if (meta.get("encoder"), meta.get("encoder_version")) != (
        features.ENCODER_NAME, features.ENCODER_VERSION
    ):
        raise CommandError(
            f"{path} was trained with encoder {meta.get('encoder')} version"
            f" {meta.get('encoder_version')}; this niwa has {features.ENCODER_NAME} version"
            f" {features.ENCODER_VERSION}: train it again"
        )
    if meta["game"] not in engine.games():
        raise CommandError(f"{path} plays {meta['game']}, which is not installed here")
    from niwa.adapters.spaces import action_space

    actions = len(action_space(meta["game"], meta["players"]).actions)
    if actions != meta["actions"]:
        raise CommandError(
            f"{path} was trained on {meta['actions']} actions of {meta['game']} at"
            f" {meta['players']} players; this niwa's game has {actions}: train it again"
        )
    if shape != (meta["actions"], meta["features"]):
        raise CommandError(f"{path}'s weights have shape {shape}, not its metadata's sizes")
    return meta


def from_policy(args: argparse.Namespace) -> int:
    meta = read_policy(Path(args.policy))
    out = Path(args.output)
    if out.exists() and any(out.iterdir()):
        raise CommandError(f"{out} is not empty: name a new folder with -o")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.policy, out / "policy.npz")
    (out / "main.py").write_text(MAIN)
    name = args.name or f"policy-{meta['game']}"
    (out / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\ngames = ["{meta["game"]}"]\n'
        'command = ["python3", "main.py"]\n'
    )
    print(f"wrote {out}: try niwa play {meta['game']} --bot {out} --bot builtin:random")
    return 0


def register(sub: Any) -> None:
    bot = sub.add_parser("bot", help="make bots from other things")
    bot_sub = bot.add_subparsers(dest="bot_command", metavar="WHAT", required=True)
    p = bot_sub.add_parser("from-policy", help="a bot folder from train.py --save's policy.npz")
    p.add_argument("policy", help="the .npz train.py --save wrote")
    p.add_argument("-o", "--output", required=True, help="the bot folder to write")
    p.add_argument("--name", help="the bot's name (default policy-GAME)")
    p.set_defaults(run=from_policy)
