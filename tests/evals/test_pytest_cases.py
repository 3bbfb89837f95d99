"""Each case of a dataset as a test of its own, failing with the layer diff."""

from __future__ import annotations

import pytest

from agentcore.evals import assert_case, load_dataset, save_case

from .helpers import config, recorded_case


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cases")
    save_case(recorded_case(contains="3"), folder / "adder.json")
    return folder


def test_a_case_that_reproduces_passes(dataset):
    (case,) = load_dataset(dataset)
    result = assert_case(case, config)
    assert result.passed and result.scores[0].passed


def test_the_failure_message_is_the_diff(dataset):
    (case,) = load_dataset(dataset)
    with pytest.raises(AssertionError) as failed:
        assert_case(case, lambda: config(answer="4"), mode="live")
    message = str(failed.value)
    assert message.startswith("case 'adder' failed")
    assert "contains('3'): answer '4' lacks '3'" in message
    assert "first divergence: model at model call 2" in message
    assert "--- layer messages ---" in message and "+final answer: '4'" in message


CASES = [recorded_case(contains="3")]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_each_case(case):
    assert_case(case, config)
