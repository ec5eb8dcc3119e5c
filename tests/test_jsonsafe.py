"""corpus.jsonsafe: user JSON that would crash or mislead the tool is refused with a reason."""

import pytest

from corpus.jsonsafe import JsonError, loads


def test_plain_json_parses():
    assert loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert loads(b'[1]') == [1]


@pytest.mark.parametrize("text,message", [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 200 levels"),
    ('{"a": ' * 50_000 + "1" + "}" * 50_000, "nested deeper than 200 levels"),
    ('{"index": ' + "9" * 5001 + "}", "an integer of 5001 digits is too long (at most 4300)"),
    ('{"timestamp": NaN}', "NaN is not a JSON number"),
    ('{"timestamp": -Infinity}', "-Infinity is not a JSON number"),
    ('{"a": 1,}', "bad JSON: Expecting property name enclosed in double quotes at line 1 column 9"),
])
def test_refusals_name_the_problem(text, message):
    with pytest.raises(JsonError) as err:
        loads(text)
    assert str(err.value).startswith(message)


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert loads('["' + "[" * 1000 + '"]') == ["[" * 1000]


def test_error_carries_line_and_column():
    with pytest.raises(JsonError) as err:
        loads('{\n  "a": }')
    assert (err.value.line, err.value.column) == (2, 8)
