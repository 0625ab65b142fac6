"""Each sight's view of a contest, made once per stored batch, and its patch from the previous one.

A sight (``server.engine.views.sight``) is what a group of viewers may see alike: its view is kept for every sight
with followers, as the message and its canonical bytes (its document is made from the bytes when a welcome needs
it). A new view follows the batch's events from the kept one (``server.engine.follow``: what the events do not
touch is kept, not built again). The patch to a new view is the ruleset's own, where it writes one for every
event of the batch, else the difference of the two messages, member by member (``protocol.patch.diff_views``:
only what changed is made a document and diffed), worked out once per distinct pair of views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.codec import canonical, document, encode, to_builtins
from protocol.events import Envelope
from protocol.messages import Json
from protocol.patch import Shared, diff_views, view_hash_of
from protocol.views import ContestView
from server.engine.contest import Contest
from server.engine.follow import followed_views
from server.engine.ruleset import Ruleset, Viewer
from server.engine.views import Sight, contest_view, written_patches
from server.feed.ring import Ring


def view_doc(ruleset: Ruleset[Any], contest: Contest[Any], viewer: Viewer) -> dict[str, Json]:
    """The viewer's view as a plain JSON document (what patches are computed over)."""
    doc: dict[str, Json] = to_builtins(contest_view(ruleset, contest, viewer))
    return doc


@dataclass(frozen=True, slots=True)
class SightPatch:
    """One sight's change in a batch: its view's bytes before and after, and the ring's entry (the ops between
    them, encoded, which the patch frames carry as they are; the new view's hash). Sights that see the same share
    one."""

    old: bytes
    new: bytes
    ring: Ring


class SightViews:
    """The published view of each sight with followers."""

    def __init__(self) -> None:
        self._views: dict[Sight, ContestView] = {}
        self._encoded: dict[Sight, bytes] = {}  # each of ``_views`` in canonical JSON
        self._docs: dict[Sight, dict[str, Json]] = {}  # the documents made of them so far

    def clear(self) -> None:
        self._views = {}
        self._encoded = {}
        self._docs = {}

    def __contains__(self, key: Sight) -> bool:
        return key in self._encoded

    def head(self, key: Sight, rules: Ruleset[Any], state: Contest[Any], viewer: Viewer) -> dict[str, Json]:
        """The sight's view of ``state`` (the published head) as a document, built if the sight has none yet."""
        if key not in self._encoded:
            view = self._views[key] = contest_view(rules, state, viewer)
            self._encoded[key] = canonical(view)
        return self.doc(key)

    def doc(self, key: Sight) -> dict[str, Json]:
        """The sight's published view as a document, made from its bytes when first needed."""
        doc = self._docs.get(key)
        if doc is None:
            doc = self._docs[key] = document(self._encoded[key])
        return doc

    def publish(
        self,
        rules: Ruleset[Any],
        previous: Contest[Any],
        state: Contest[Any],
        batch: Sequence[tuple[Envelope, Any]],
        viewers: dict[Sight, Viewer],
    ) -> dict[Sight, SightPatch]:
        """Each sight's view of ``state``, which becomes its published view, and its patch from ``previous``."""
        sights = list(viewers)
        seen = [viewers[key] for key in sights]
        written = written_patches(rules, previous, state, batch, seen)
        mine = dict(zip(sights, written, strict=True)) if written is not None else {}
        views: dict[Sight, ContestView] = {}
        encoded: dict[Sight, bytes] = {}
        docs: dict[Sight, dict[str, Json]] = {}
        patches: dict[tuple[bytes, bytes], SightPatch] = {}  # who sees the same shares a patch
        members = Shared()  # and what sights see alike is diffed once
        changes: dict[Sight, SightPatch] = {}
        kept = [self._views.get(key) or contest_view(rules, previous, viewers[key]) for key in sights]
        followed = followed_views(rules, previous, state, batch, seen, kept)
        made: dict[int, bytes] = {}  # a view that serves several sights is encoded once
        for key, old, view in zip(sights, kept, followed, strict=True):
            new_bytes = made.get(id(view))
            if new_bytes is None:
                new_bytes = made[id(view)] = canonical(view)
            old_bytes = self._encoded[key] if key in self._views else canonical(old)
            shared = patches.get((old_bytes, new_bytes))
            if shared is None:
                ops = [] if old_bytes == new_bytes else mine.get(key)
                if ops is None:
                    ops = diff_views(old, view, members)
                shared = patches[old_bytes, new_bytes] = SightPatch(
                    old_bytes, new_bytes, (encode(ops), view_hash_of(new_bytes))
                )
            changes[key] = shared
            encoded[key] = new_bytes
            if old_bytes == new_bytes:  # unchanged: keep the message and document it had (equal, and shared)
                views[key] = old
                if (doc := self._docs.get(key)) is not None:
                    docs[key] = doc
            else:
                views[key] = view
        self._views = views
        self._encoded = encoded
        self._docs = docs
        return changes
