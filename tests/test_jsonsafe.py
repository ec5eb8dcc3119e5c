"""corpus.jsonsafe: user JSON that would crash or mislead the tool is refused with a reason."""

import pytest

from corpus.jsonsafe import JsonError, loads


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
