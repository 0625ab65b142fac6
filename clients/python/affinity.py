"""The contest a connection follows, named in its WebSocket URL (``/ws?contest=ID``) so a proxy that hashes on it
(deploy/nginx.conf: ``hash $arg_contest consistent``) brings a table's connections to one process. The query
grants nothing: the token in the frames decides what the connection may see and do."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def affinity_url(url: str, contests: Iterable[str]) -> str:
    """``url`` naming the one contest of ``contests`` (any ``contest`` it named before replaced); ``url`` as it
    is when the connection follows no contest or several."""
    named = list(dict.fromkeys(contests))
    if len(named) != 1:
        return url
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "contest"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("contest", named[0])])))
