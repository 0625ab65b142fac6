"""The open-files limit asked for at start, and the store named by the environment."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from server.fd_limit import CEILING, wanted
from server.store.redis import RedisStore
from server.store_url import store_from_env
from server.user_error import USAGE_ERROR, UserError

UNLIMITED = resource.RLIM_INFINITY


@pytest.mark.parametrize(
    ("soft", "hard", "asked"),
    [(1024, 524288, 524288), (256, 256, 256), (1024, UNLIMITED, CEILING), (UNLIMITED, UNLIMITED, UNLIMITED)],
)
def test_the_soft_limit_is_raised_to_the_hard_one(soft: int, hard: int, asked: int) -> None:
    assert wanted(soft, hard) == asked


def test_the_store_comes_from_agon_store_or_the_first_line_of_agon_store_file(tmp_path: Path) -> None:
    url = "redis-cluster://:pw@10.0.0.1:6379,10.0.0.2:6379"
    assert store_from_env({}) is None
    assert store_from_env({"AGON_STORE": f" {url} "}) == url
    file = tmp_path / "url"
    file.write_text(f"{url}\nanything after the first line\n")
    assert store_from_env({"AGON_STORE_FILE": str(file)}) == url


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "no such file"),
        ("", "its first line is empty"),
        ("\nredis://x\n", "its first line is empty"),
        (b"\xff\xfe", "is not a text file"),
    ],
)
def test_a_store_file_that_names_no_store_is_a_usage_error(
    tmp_path: Path, content: str | bytes | None, said: str
) -> None:
    file = tmp_path / "url"
    if isinstance(content, str):
        file.write_text(content)
    elif content is not None:
        file.write_bytes(content)
    with pytest.raises(UserError, match=said) as raised:
        store_from_env({"AGON_STORE_FILE": str(file)})
    assert raised.value.status == USAGE_ERROR
    assert str(file) in str(raised.value)


def test_both_variables_at_once_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="both set") as raised:
        store_from_env({"AGON_STORE": "memory:", "AGON_STORE_FILE": str(tmp_path / "url")})
    assert raised.value.status == USAGE_ERROR


@pytest.mark.parametrize(
    ("url", "here"),
    [
        ("redis://127.0.0.1:6379/0", True),
        ("redis://:secret@localhost:6379/0", True),
        ("redis://10.0.0.5:6379/0", False),
        ("redis-cluster://127.0.0.1:7000,127.0.0.1:7001", True),
        ("redis-cluster://:secret@127.0.0.1:7000,10.0.0.6:7001", False),
    ],
)
def test_a_store_on_another_host_is_told_apart_for_the_link_warning(url: str, here: bool) -> None:
    # agon serve warns when its links listen on loopback while its store (so its peers) may be elsewhere.
    assert RedisStore(url).on_loopback is here
