"""corpus.loading.jsonsafe: user JSON that would crash or mislead the tool is refused with a reason."""

import pytest

from corpus.loading.jsonsafe import REFUSED, JsonError, loads, loads_each


def test_plain_json_parses():
    assert loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert loads(b"[1]") == [1]


@pytest.mark.parametrize(
    "text,message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 200 levels"),
        ('{"a": ' * 50_000 + "1" + "}" * 50_000, "nested deeper than 200 levels"),
        ('{"index": ' + "9" * 5001 + "}", "an integer of 5001 digits is too long (at most 4300)"),
        ('{"timestamp": NaN}', "NaN is not a JSON number"),
        ('{"timestamp": -Infinity}', "-Infinity is not a JSON number"),
        ('{"a": 1,}', "bad JSON: Expecting property name enclosed in double quotes at line 1 column 9"),
    ],
)
def test_refusals_name_the_problem(text, message):
    with pytest.raises(JsonError) as err:
        loads(text)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(
    "text,where",
    [
        ('{\n "a": [1,\n  NaN]}', (3, 3)),
        ('{"s": "NaN", "x": NaN}', (1, 19)),  # the constant, not the same letters inside a string
        ('{"i":\n ' + "9" * 5001 + "}", (2, 2)),
        ('{"a":\n' + "[" * 100_000 + "]" * 100_000 + "}", (2, 200)),  # the outer object is the first level
        ('["ok",\n "\\ud800"]', (2, 3)),
    ],
)
def test_every_refusal_names_its_line_and_column(text, where):
    with pytest.raises(JsonError) as err:
        loads(text)
    assert (err.value.line, err.value.column) == where
    assert str(err.value).endswith(f"at line {where[0]} column {where[1]}")


def test_lone_surrogates_are_refused_but_pairs_and_escaped_backslashes_are_text():
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"
    assert loads('"\\\\ud800"') == "\\ud800"
    with pytest.raises(JsonError, match=r"\\ude00 is half of a character \(a lone surrogate\)"):
        loads('"x\\ude00"')


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert loads('["' + "[" * 1000 + '"]') == ["[" * 1000]


def test_error_carries_line_and_column():
    with pytest.raises(JsonError) as err:
        loads('{\n  "a": }')
    assert (err.value.line, err.value.column) == (2, 8)


# Texts the two parsers could read differently: whitespace, numbers at their limits, escapes,
# duplicate keys, nesting, and what JSON does not allow.
_EDGE_TEXTS = [
    '{"a":"x\ty"}',
    '{"a":1,}',
    "[1,]",
    '{"a":01}',
    '{"a":+1}',
    "{'a':1}",
    '{"a":1.}',
    '{"a":.5}',
    '{"a":"\x00"}',
    '\u00a0{"a":1}',
    '{"a":1} x',
    '{"a":-}',
    '{"a":1e5}',
    '{"a":"\\x41"}',
    '{"a":tru}',
    ' {"a":1} ',
    '{"a":1}\x0c',
    '{"a":"\\u00e9"}',
    '{"a":1E+2}',
    '{"a":-0.0e-0}',
    '{"a":"\u2028"}',
    '{"a":[[[[1]]]]}',
    '{"":1}',
    '{"a":1}\r',
    '{"a":NaN}',
    '{"a":-Infinity}',
    '{"a":1,"a":2}',
    '{"b":1,"a":2,"b":3}',
    "[1e400]",
    "[1.5e-400]",
    "[-0.0, -0]",
    "[0.1, 1.7976931348623157e308]",
    '["\\ud83d"]',
    '["\\ud83d\\ude00"]',
    '["\\\\ud83d"]',
    "[" + "9" * 4300 + "]",
    "[" + "9" * 4301 + "]",
    '"' + "9" * 5000 + '"',
    "\ufeff[1]",
    "[" * 150 + "]" * 150,
    "[" * 250 + "]" * 250,
    "",
    "   ",
    "null",
    '{"session_id":"S1","action_index":3,"content":[[1,2],[3,4]],"x":true}',
]


@pytest.mark.parametrize("text", _EDGE_TEXTS)
def test_the_fast_reading_of_many_texts_gives_what_loads_gives_or_refuses(text):
    (value,) = loads_each([text])
    try:
        expected = loads(text)
    except JsonError:
        assert value is REFUSED
        return
    if value is not REFUSED:  # (refusing a text loads takes only sends it to the careful reader)
        assert value == expected and repr(value) == repr(expected)
