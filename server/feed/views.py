"""Each sight's view of a contest, built once per stored batch, and its patch from the previous one.

A sight (``server.engine.views.sight``) is what a group of viewers may see alike: its view's canonical bytes are
kept for every sight with followers, its document only where one was made (else made from the bytes when a
welcome or a diff needs it). The patch to a new view is the ruleset's own, where it writes one for every event of
the batch, else a diff of the documents, each made once per distinct view and diffed once per distinct pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.codec import canonical, document, encode, to_builtins
from protocol.events import Envelope
from protocol.messages import Json
from protocol.patch import Op, diff, view_hash_of
from server.engine.contest import Contest
from server.engine.ruleset import Ruleset, Viewer
from server.engine.views import Sight, contest_view, contest_views, written_patches
from server.feed.ring import Ring


def view_doc(ruleset: Ruleset[Any], contest: Contest[Any], viewer: Viewer) -> dict[str, Json]:
    """The viewer's view as a plain JSON document (what patches are computed over)."""
    doc: dict[str, Json] = to_builtins(contest_view(ruleset, contest, viewer))
    return doc


@dataclass(frozen=True, slots=True)
class SightPatch:
    """One sight's change in a batch: its view's bytes before and after, the ops between them, and the ring's
    entry (the ops encoded, the new view's hash). Sights that see the same share one."""

    old: bytes
    new: bytes
    ops: list[Op]
    ring: Ring


class SightViews:
    """The published view of each sight with followers."""

    def __init__(self) -> None:
        self._docs: dict[Sight, dict[str, Json]] = {}
        self._encoded: dict[Sight, bytes] = {}  # each of ``_docs`` in canonical JSON

    def clear(self) -> None:
        self._docs = {}
        self._encoded = {}

    def __contains__(self, key: Sight) -> bool:
        return key in self._encoded

    def head(self, key: Sight, rules: Ruleset[Any], state: Contest[Any], viewer: Viewer) -> dict[str, Json]:
        """The sight's view of ``state`` (the published head) as a document, built if the sight has none yet."""
        if key in self._encoded:
            return self.doc(key)
        head = self._docs[key] = view_doc(rules, state, viewer)
        self._encoded[key] = canonical(head)
        return head

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
        written = written_patches(rules, previous, state, batch, [viewers[key] for key in sights])
        mine = dict(zip(sights, written, strict=True)) if written is not None else {}
        docs: dict[Sight, dict[str, Json]] = {}
        encoded: dict[Sight, bytes] = {}
        patches: dict[tuple[bytes, bytes], SightPatch] = {}  # who sees the same shares a patch
        plain: dict[bytes, dict[str, Json]] = {}  # each distinct new view as a document, made once
        changes: dict[Sight, SightPatch] = {}
        views = contest_views(rules, state, [viewers[key] for key in sights])
        for key, view in zip(sights, views, strict=True):
            viewer = viewers[key]
            new_bytes = canonical(view)
            old_bytes = self._encoded.get(key)
            old: dict[str, Json] | None = None
            if old_bytes is None:
                old = view_doc(rules, previous, viewer)
                old_bytes = canonical(old)
            shared = patches.get((old_bytes, new_bytes))
            if shared is None:
                ops = [] if old_bytes == new_bytes else mine.get(key)
                if ops is None:
                    old = self.doc(key) if old is None else old
                    new = plain.get(new_bytes)
                    if new is None:
                        new = plain[new_bytes] = document(new_bytes)
                    ops = diff(old, new)
                shared = patches[old_bytes, new_bytes] = SightPatch(
                    old_bytes, new_bytes, ops, (encode(ops), view_hash_of(new_bytes))
                )
            changes[key] = shared
            encoded[key] = new_bytes
            # Its document, where one was made (else it is made from the bytes when a welcome or a diff needs it).
            kept = plain.get(new_bytes)
            if kept is None and old_bytes == new_bytes:
                kept = old if old is not None else self._docs.get(key)
            if kept is not None:
                docs[key] = kept
        self._docs = docs
        self._encoded = encoded
        return changes
