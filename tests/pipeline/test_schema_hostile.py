"""A schema is data someone else may have written (a template shared, a file downloaded, a setting), and a model's
reply is untrusted: nothing a schema names is fetched or read, a loop or a depth never ends in an internal error, a
pattern written to backtrack takes no longer than any other, and NaN is not JSON. Each problem is one line, said
before a model is asked. A loopback listener stands where a schema points: it must see no request."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Iterator

import pytest
from conftest import cli_env
from fake_ollama import Script

from assistant.config import Settings
from assistant.frontends.client import DaemonError
from assistant.schema import SchemaError, parse, problem, read_object
from processes import Daemon, run


class Listener:
    """A TCP listener on loopback that records every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.seen: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                self.seen.append(conn.recv(4096))
            except OSError:
                self.seen.append(b"")
            conn.close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.sock.close()


def outside(listener: Listener, secret: Path) -> list[dict]:
    """Schemas that point outside themselves, each a different way."""
    return [
        {"type": "object", "properties": {"a": {"$ref": listener.url("a.json")}}},
        {"$id": listener.url("root.json"), "type": "object", "properties": {"a": {"$ref": "other.json"}}},
        {"type": "object", "properties": {"a": {"$id": listener.url("sub/"), "$ref": "b.json"}}},
        {"$ref": secret.as_uri()},
        {"$ref": f"{secret.as_uri()}#/a"},
        {"$dynamicRef": listener.url("d.json")},
        {"$schema": listener.url("meta.json"), "type": "object"},
        {"allOf": [{"$ref": "//127.0.0.1:%d/x" % listener.port}]},
    ]


def test_nothing_a_schema_names_is_fetched_or_read(listener, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "the secret"}')
    for schema in outside(listener, secret):
        with pytest.raises(SchemaError) as e:
            parse(json.dumps(schema))
        said = str(e.value)
        assert "\n" not in said and "secret" not in said.replace(str(secret), ""), said
        assert "outside" in said or "dialect" in said, said
    assert listener.seen == []


@pytest.mark.parametrize("schema, says", [
    ({"$ref": "#"}, "without end"),
    ({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}},
     "without end"),
    ({"type": "object", "properties": {"x": {"allOf": [{"$ref": "#/properties/x"}]}}}, "without end"),
    ({"$ref": "#/$defs/missing"}, "points at nothing"),
    ({"$ref": "#nowhere"}, "points at nothing"),
    ({"type": "string", "pattern": "(?=a)b"}, "not one this follows"),
    ({"type": "string", "pattern": r"(a)\1"}, "not one this follows"),
    ({"type": "object", "patternProperties": {"^(a+)+$": {}}}, "patternProperties"),
])
def test_a_schema_that_loops_points_nowhere_or_needs_backtracking_is_one_line(schema, says):
    with pytest.raises(SchemaError) as e:
        parse(json.dumps(schema))
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_schema_that_refers_to_itself_through_the_object_is_a_tree_and_is_followed():
    tree = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}, "required": ["name"]}
    assert parse(json.dumps(tree)) == tree
    assert problem({"name": "a", "child": {"name": "b", "child": {"child": {}}}}, tree) == \
        "it lacks the field 'name' (in 'child.child')"


@pytest.mark.parametrize("text, says", [
    ("[" * 100_000 + "]" * 100_000, "larger than"),
    ("{" + '"a":{' * 40 + "}" * 41, "nests deeper than"),
    ('{"type": "number", "maximum": NaN}', "NaN is not a JSON number"),
    ('{"type": "number", "minimum": -Infinity}', "-Infinity is not a JSON number"),
    ("x" * 300, "is 300 characters long"),  # a field name longer than a file name can be
    ("a" * 300 + ".json", "the name is too long"),
])
def test_size_depth_and_numbers_that_are_not_json_are_one_line(text, says):
    with pytest.raises(SchemaError) as e:
        parse(text, Path.cwd())
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_schema_file_over_the_size_read_is_said_to_be_too_large(tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"type": "object", "description": "' + "x" * (70 << 10) + '"}')
    with pytest.raises(SchemaError) as e:
        parse("big.json", tmp_path)
    assert "larger than 64 KB" in str(e.value)


def test_a_setting_or_a_daemon_request_reads_no_file(tmp_path, monkeypatch):
    (tmp_path / "person.json").write_text('{"type": "object"}')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as e:
        Settings(answer_schema="person.json")
    assert "only --schema and /schema read" in str(e.value)
    with pytest.raises(ValueError):
        Settings(answer_schema=str(tmp_path / "person.json"))


def test_a_models_reply_is_read_within_bounds():
    assert read_object("[" * 100_000 + "]" * 100_000)[1] == "it nests deeper than 64 levels"
    assert read_object("[" * 70 + "]" * 70)[1] == "it nests deeper than 64 levels"
    assert "NaN is not a JSON number" in read_object('{"x": NaN}')[1]
    assert "Infinity is not a JSON number" in read_object('{"x": Infinity}')[1]
    assert read_object('{"x": 1.5}') == ({"x": 1.5}, None)


@pytest.mark.slow  # a whole process
def test_a_backtracking_pattern_against_a_long_reply_answers_at_once(home, fake):
    """Python's re would take 2^60 steps on this reply; RE2 takes sixty. The process has 60 s (processes.run)."""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["code"]}
    fake.handler = Script(router={"route": "chat"}).always("responder", json.dumps({"code": "a" * 60 + "!"}))
    out = run(["ask", "--no-daemon", "--max-retries", "1", "--schema", json.dumps(schema), "a code please"],
              cli_env(home, fake))
    assert out.returncode == 1 and "does not have the form" in out.stdout + out.stderr


@pytest.mark.slow  # whole processes
def test_every_way_a_schema_arrives_refuses_an_outside_reference_before_a_model_is_asked(home, fake, listener, tmp_path):
    fake.handler = Script(router={"route": "chat"}, responder='{"a": "x"}')
    schema = json.dumps({"type": "object", "properties": {"a": {"$ref": listener.url("a.json")}}})
    env = cli_env(home, fake)
    out = run(["ask", "--no-daemon", "--schema", schema, "anything"], env)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "outside itself" in out.stderr
    saved = run(["ask", "--save", "fetcher", "--schema", schema], env)
    assert saved.returncode == 2 and "outside itself" in saved.stderr
    (tmp_path / "schema.json").write_text(schema)
    from_file = run(["ask", "--no-daemon", "--schema", str(tmp_path / "schema.json"), "anything"], env)
    assert from_file.returncode == 2 and "outside itself" in from_file.stderr
    from_setting = run(["ask", "--no-daemon", "anything"], {**env, "ASSISTANT_ANSWER_SCHEMA": schema})
    assert from_setting.returncode == 2 and "outside itself" in from_setting.stderr
    assert "internal error" not in out.stderr + saved.stderr + from_file.stderr + from_setting.stderr
    assert listener.seen == [] and fake.requests == []


@pytest.mark.slow
def test_the_daemon_refuses_it_too_and_stays_up(home, fake, listener):
    fake.handler = Script(router={"route": "chat"}, responder='{"a": "x"}')
    daemon = Daemon(home, cli_env(home, fake)).start()
    try:
        schema = json.dumps({"type": "object", "properties": {"a": {"$ref": listener.url("a.json")}}})
        with pytest.raises(DaemonError) as e:
            list(daemon.client.ask("anything", settings={"answer_schema": schema}))
        assert e.value.status == 400 and "outside itself" in str(e.value) and "internal error" not in str(e.value)
        assert daemon.client.get("/v1/health") is not None  # still serving
    finally:
        daemon.stop()
    assert listener.seen == [] and fake.requests == []
