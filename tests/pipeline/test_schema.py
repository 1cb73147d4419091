"""Answers as objects (--schema): the schema in its three forms, the model asked for it natively (Ollama's format),
the object checked against it with the reason fed back, a tool's result filling it, and the output one JSON value."""

from __future__ import annotations

import json

import pytest
from conftest import cli_env
from fake_ollama import Script

from assistant.schema import SchemaError, canonical, concise, parse, problem
from processes import run

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}


def test_the_concise_form_is_a_schema_every_field_of_which_is_required():
    schema = concise("name, age int, tags list, bio: a short biography")
    assert schema["required"] == ["name", "age", "tags", "bio"] and schema["properties"]["age"] == {"type": "integer"}
    assert schema["properties"]["tags"]["type"] == "array" and schema["properties"]["bio"]["description"]


@pytest.mark.parametrize("text, says", [
    ('{"type": 5}', "not a valid JSON Schema"), ("{not json", "not JSON"), ("name, age integerish", "not a type"),
    ("", "empty"), ("missing.json", "cannot read"),
])
def test_a_schema_that_cannot_be_used_is_one_line(text, says, tmp_path):
    with pytest.raises(SchemaError) as e:
        parse(text, tmp_path)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_schema_file_is_read(tmp_path):
    (tmp_path / "person.json").write_text(json.dumps(PERSON))
    assert json.loads(canonical("person.json", tmp_path)) == PERSON
    assert problem({"name": "Ada"}, PERSON) == "'age' is a required property"


async def test_a_valid_object_is_the_answer_and_the_model_was_asked_for_it_natively(fake, make_app):
    fake.handler = Script(router={"route": "chat"}, responder='{"name": "Ada Lovelace", "age": 36}')
    result = await make_app(answer_schema=json.dumps(PERSON)).ask("Who wrote the first program, and how old was she "
                                                                  "when she died? She died at 36.")
    assert result.ok and json.loads(result.answer) == {"name": "Ada Lovelace", "age": 36}
    asked = fake.requests[-1]
    assert asked["format"] == PERSON and not asked.get("tools")  # Ollama's format, not a tool call


async def test_an_invalid_object_gets_the_reason_back_and_the_next_one_passes(fake, make_app):
    fake.handler = Script(router={"route": "chat"}, responder=['{"name": "Ada Lovelace"}',
                                                               '{"name": "Ada Lovelace", "age": 36}'])
    result = await make_app(answer_schema=json.dumps(PERSON)).ask("Ada Lovelace died at 36. Her name and age?")
    assert result.ok and json.loads(result.answer)["age"] == 36
    fed_back = fake.requests[-1]["messages"][-1]["content"]
    assert "'age' is a required property" in fed_back


async def test_an_object_that_never_follows_is_one_honest_line(fake, make_app):
    fake.handler = Script(router={"route": "chat"}).always("responder", "Ada, thirty-six")
    result = await make_app(answer_schema=json.dumps(PERSON), max_retries=1).ask("Ada's name and age?")
    assert not result.ok and "could not answer with an object" in result.answer and result.model_calls == 3


async def test_a_tools_result_fills_the_schema_and_its_figures_are_held_to_it(fake, make_app, meteo):
    import re

    # fields no figure of the report is named by: the model fills them (named ones are the tool's: below)
    schema = {"type": "object", "properties": {"reading": {"type": "number"}, "mood": {"type": "string"}},
              "required": ["reading", "mood"]}

    def from_results(request):  # what a capable model writes: the report's own figure
        system = request["messages"][0]["content"]
        temperature = re.search(r'"temperature": "(-?[\d.]+)', system).group(1)
        return json.dumps({"reading": float(temperature), "mood": "as reported"})

    fake.handler = Script(responder=['{"reading": 99.9, "mood": "sunny"}', from_results])
    app = make_app(answer_schema=json.dumps(schema), weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url)
    result = await app.ask("what's the weather in Oslo")
    reported = result.tool_calls[-1].result["now"]["temperature"] if "now" in result.tool_calls[-1].result else \
        result.tool_calls[-1].result["temperature"]
    assert result.ok and result.route == "weather" and result.model_calls == 2  # routed by rule: no routing call
    assert json.loads(result.answer)["reading"] == float(re.match(r"-?[\d.]+", reported).group())
    assert "99.9" in fake.requests[-1]["messages"][-1]["content"]  # the invented figure was refused with its reason


@pytest.mark.parametrize("schema, question, expected", [
    ({"type": "number"}, "what is 12*7", 84),
    ({"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]}, "2^10", {"result": 1024}),
    ({"type": "object", "properties": {"value": {"type": "number"}}}, "what's 1.5 plus 2.25", {"value": 3.75}),
])
async def test_a_rule_answered_figure_fills_a_one_number_schema_with_no_model_call(fake, make_app, schema, question,
                                                                                  expected):
    result = await make_app(answer_schema=json.dumps(schema)).ask(question)
    assert result.ok and json.loads(result.answer) == expected and result.model_calls == 0 and fake.requests == []


async def test_a_weather_report_fills_fields_of_its_figures_names_with_no_model_call(fake, make_app, meteo):
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "temperature": {"type": "number"},
                                               "conditions": {"type": "string"}}, "required": ["city", "temperature",
                                                                                              "conditions"]}
    app = make_app(answer_schema=json.dumps(schema), weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url)
    result = await app.ask("what's the weather in Paris")
    got = json.loads(result.answer)
    assert result.ok and result.model_calls == 0 and fake.requests == []
    assert got["city"] == "Paris" and isinstance(got["temperature"], (int, float)) and got["conditions"]
    assert str(got["temperature"]) in json.dumps(result.tool_calls[-1].result)  # the report's own figure


async def test_a_field_no_figure_is_named_by_leaves_the_object_to_the_model(fake, make_app):
    fake.handler = Script(responder='{"result": 84, "explanation": "twelve sevens"}')
    schema = {"type": "object", "properties": {"result": {"type": "number"}, "explanation": {"type": "string"}},
              "required": ["result", "explanation"]}
    result = await make_app(answer_schema=json.dumps(schema)).ask("what is 12*7")
    assert result.ok and result.model_calls == 1 and json.loads(result.answer)["explanation"] == "twelve sevens"


def test_ask_prints_the_object_alone_and_a_bad_schema_is_one_line(home, fake):
    fake.handler = Script(router={"route": "chat"}, responder='{"name": "Ada", "age": 36}')
    env = cli_env(home, fake)
    out = run(["ask", "--schema", "name, age int", "Ada is 36. Her name and age?"], env)
    assert out.returncode == 0 and json.loads(out.stdout) == {"name": "Ada", "age": 36} and out.stdout.count("\n") == 1
    bad = run(["ask", "--schema", '{"type": 5}', "anything"], env)
    assert bad.returncode == 2 and "--schema: not a valid JSON Schema" in bad.stderr and bad.stderr.count("\n") == 1


def test_a_template_keeps_the_schema_as_it_keeps_any_flag(home, fake):
    """The template is derived from the flag rows: --schema is saved, shown and applied with nothing else touched."""
    fake.handler = Script(router={"route": "chat"}, responder='{"name": "Ada", "age": 36}')
    env = cli_env(home, fake)
    saved = run(["ask", "--save", "people", "--schema", "name, age int"], env)
    assert saved.returncode == 0 and "answer_schema" in saved.stdout
    assert "answer_schema" in run(["templates", "show", "people"], env).stdout
    out = run(["ask", "-t", "people", "Ada is 36. Her name and age?"], env)
    assert out.returncode == 0 and json.loads(out.stdout) == {"name": "Ada", "age": 36}
    assert fake.requests[-1]["format"]["required"] == ["name", "age"]
