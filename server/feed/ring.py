"""The resume ring: for the last ``resume_ring`` batches, each sight's patch (its ops encoded, and the hash of
the view it leads to), by the batch's last version — kept also for sights whose viewers left, for as long — and
sparse states to refold a resume from. Encoded, the ring is a few bytes objects the garbage collector never walks.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from protocol.codec import decode
from protocol.patch import Op
from server.engine.contest import Contest
from server.engine.ruleset import Viewer
from server.engine.views import Sight, sight

Ring = tuple[bytes, str]
"""A sight's patch in the resume ring: its ops as JSON, and the hash of the view it leads to."""

RING_OPS = 256
"""A resume from the ring sends the ring's patches as one patch while they hold at most this many ops
(beyond, the view at the follower's version is refolded and diffed once: a shorter patch)."""


class ResumeRing:
    def __init__(self, batches: int, refold_limit: int) -> None:
        self._batches = batches
        self._refold_limit = refold_limit
        self._ring: OrderedDict[int, dict[Sight, Ring]] = OrderedDict()
        self._sights: dict[Sight, Sight] = {}
        self.departed: dict[Sight, tuple[Viewer, int]] = {}  # viewers who left: since which version
        self.checkpoints: OrderedDict[int, Contest[Any]] = OrderedDict()  # sparse states to refold resumes from

    def clear(self) -> None:
        """Forget everything (the history it described is gone)."""
        self._ring.clear()
        self.checkpoints.clear()
        self.departed.clear()

    def interned(self, key: Sight) -> Sight:
        """One key object per sight, shared by the ring's entries."""
        return self._sights.setdefault(key, key)

    def known(self, key: Sight) -> Sight:
        return self._sights.get(key, key)

    def remember(self, state: Contest[Any], patches: dict[Sight, Ring]) -> None:
        """The batch that ended at ``state`` and each sight's patch to it."""
        self._ring[state.version] = patches
        while len(self._ring) > self._batches:
            self._ring.popitem(last=False)
        limit = self._refold_limit
        step = max(1, limit // 8)
        if not self.checkpoints or state.version - next(reversed(self.checkpoints)) >= step:
            self.checkpoints[state.version] = state
        while self.checkpoints and next(iter(self.checkpoints)) < state.version - limit:
            self.checkpoints.popitem(last=False)

    def resume(self, viewer: Viewer, after: int, head: int) -> tuple[str, list[Op], str] | None:
        """From the ring: the hash of the viewer's view at ``after``, the ops from there to the head (version
        ``head``: the ring's patches in a row) and the head view's hash; None when the ring does not reach."""
        key = sight(viewer)
        at = self._ring.get(after, {}).get(key)
        if at is None or after > head:
            return None
        ops: list[Op] = []
        head_hash = at[1]
        for version, patches in reversed(self._ring.items()):  # the newest is the head's
            if version <= after:
                break
            patch = patches.get(key)
            if patch is None:
                return None
            if version == head:
                head_hash = patch[1]
            ops[:0] = decode(patch[0], list[Op])
            if len(ops) > RING_OPS:
                return None
        return at[1], ops, head_hash
