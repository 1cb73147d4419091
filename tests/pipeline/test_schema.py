"""Answers as objects (--schema): the schema in its three forms, the model asked for it natively (Ollama's format),
the object checked against it with the reason fed back, a tool's result filling it, and the output one JSON value."""

from __future__ import annotations

import json

import pytest
from conftest import cli_env
from fake_ollama import Script

from assistant.schema import SchemaError, canonical, concise, parse, problem, read_object
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
    assert problem({"name": "Ada"}, PERSON) == "it lacks the field 'age'"


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
    assert "it lacks the field 'age'" in fed_back


LIST = {"type": "object", "properties": {"items": {"type": "array", "items": PERSON, "maxItems": 2},
                                        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                                        "size": {"enum": ["S", "M"]}}, "additionalProperties": False}


@pytest.mark.parametrize("value, english, chinese", [
    ({"items": [{"name": "Ada", "age": "36"}]}, "the field 'items[0].age' is text, where the schema wants a whole number",
     "字段 'items[0].age'是文本,而结构要求整数"),
    ({"items": [{"name": "Ada"}]}, "it lacks the field 'age' (in 'items[0]')", "缺少字段 'age'(在 'items[0]' 中)"),
    ({"colour": "red"}, "it has fields the schema does not: 'colour'", "多了结构里没有的字段 'colour'"),
    ({"size": "XL"}, "the field 'size' is \"XL\", which is not one of \"S\", \"M\"", "不在允许的值中"),
    ({"code": "abcd"}, "the field 'code' does not have the form the schema's pattern asks for", "不符合结构要求的格式"),
    ({"items": [{"name": "Ada", "age": 36}] * 3}, "the field 'items' has more than 2 items", "多于 2 项"),
    ([1], "it is a list, where the schema wants an object", "该对象是列表,而结构要求对象"),
])
def test_a_refused_object_is_said_in_words_a_person_reads_in_the_question_s_language(value, english, chinese):
    assert problem(value, LIST) == english
    assert chinese in problem(value, LIST, zh=True)
    assert "property" not in problem(value, LIST) and "instance" not in problem(value, LIST)


@pytest.mark.parametrize("reply, says", [
    ("Ada, thirty-six", "it is words, not JSON"), ('{"name": "Ada"} and more', "there is more after the JSON value"),
    ('{"name": "Ada', "a text in it has no closing quote"), ('{"name" "Ada"}', "something is missing or out of place"),
])
def test_a_reply_that_is_not_json_is_said_plainly(reply, says):
    assert says in read_object(reply)[1]
    assert "JSON" in read_object(reply, zh=True)[1] or "文本" in read_object(reply, zh=True)[1]


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


def test_schema_multi_answers_a_list_and_logs_finds_the_objects_by_schema(home, fake):
    """llm's habits: --schema-multi wraps the schema in {"items": [...]}; logs --schema(-multi) finds the turns
    answered with it (by the schema as given, or its id), --data prints the objects, --data-key their items."""
    dogs = '{"items": [{"name": "Rex", "age": 3}, {"name": "Nova", "age": 5}]}'
    fake.handler = Script(router={"route": "chat"}).always("responder", dogs)
    env = cli_env(home, fake)
    out = run(["ask", "--schema-multi", "name, age int", "Rex is 3 and Nova is 5. Their names and ages?"], env)
    assert out.returncode == 0 and json.loads(out.stdout) == json.loads(dogs)
    asked = fake.requests[-1]["format"]
    assert asked["required"] == ["items"] and asked["properties"]["items"]["items"]["required"] == ["name", "age"]
    fake.handler = Script(router={"route": "chat"}).always("responder", '{"name": "Ada", "age": 36}')
    assert run(["ask", "--schema", "name, age int", "Ada is 36. Her name and age?"], env).returncode == 0
    assert run(["ask", "--no-stream", "hello there"], env).returncode in (0, 1)  # a turn with no schema

    items = run(["logs", "--schema-multi", "name, age int", "--data-key", "items"], env).stdout.splitlines()
    assert [json.loads(line)["name"] for line in items] == ["Rex", "Nova"]
    whole = run(["logs", "--schema-multi", "name, age int", "--data"], env).stdout.splitlines()
    assert [json.loads(line) for line in whole] == [json.loads(dogs)]
    one = run(["logs", "--schema", "name, age int", "--data-array"], env).stdout
    assert json.loads(one) == [{"name": "Ada", "age": 36}]
    listed = json.loads(run(["logs", "--schema", "name, age int", "--json"], env).stdout)
    by_id = run(["logs", "--schema", listed["schema_id"][:8], "--data"], env).stdout
    assert json.loads(by_id) == {"name": "Ada", "age": 36}
    assert run(["logs", "--schema", "colour", "--data"], env).stdout == ""  # a schema never answered with: nothing
    both = run(["ask", "--schema", "a", "--schema-multi", "b", "x"], env)
    assert both.returncode == 2 and "give one of them" in both.stderr


def test_the_chat_s_schema_command_takes_multi_as_schema_multi():
    from types import SimpleNamespace

    from assistant.frontends.repl import schema_command

    settings = SimpleNamespace(answer_schema=None)
    said = schema_command(settings, "multi name, age int")
    wanted = json.loads(settings.answer_schema)
    assert wanted["required"] == ["items"] and wanted["properties"]["items"]["items"]["required"] == ["name", "age"]
    assert said.startswith("answers follow:")
    schema_command(settings, "multi")  # a field called multi, not an empty list
    assert json.loads(settings.answer_schema)["required"] == ["multi"]
