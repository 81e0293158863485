"""SPEC 9: the complex-task rule, exactly, over a corpus; the todo auto-init it triggers."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import TodoItem
from engine.workflow.complex_task import (
    enumerated_items,
    is_complex,
    keyword_hits,
    should_init_todos,
    todo_init_instruction,
)
from engine.workflow.todos import TodoList

CORPUS = Path(__file__).parent / "data" / "complex_tasks.tsv"


def corpus() -> list[tuple[str, str]]:
    cases = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        expected, request = line.split("\t", 1)
        cases.append((expected, request.replace("\\n", "\n")))
    return cases


def test_corpus_has_at_least_60_cases_in_chinese_and_english() -> None:
    cases = corpus()
    assert len(cases) >= 60
    chinese = [r for _, r in cases if any("\u4e00" <= ch <= "\u9fff" for ch in r)]
    assert len(chinese) >= 15 and len(cases) - len(chinese) >= 15
    assert {e for e, _ in cases} == {"enumeration", "length", "keywords", "pieces", "simple"}


@pytest.mark.parametrize(("expected", "request_text"), corpus())
def test_complex_task_rule(expected: str, request_text: str) -> None:
    verdict = is_complex(request_text)
    assert (verdict.rule or "simple") == expected, verdict.detail
    assert bool(verdict) == (expected != "simple")


def test_length_counts_unicode_characters_after_trimming() -> None:
    assert is_complex("测" * 40).rule == "length"
    assert not is_complex("测" * 39)
    assert not is_complex("  " + "x" * 39 + "  \n")
    assert is_complex("😀" * 40).rule == "length"


def test_enumeration_wins_over_length() -> None:
    verdict = is_complex("1. " + "a" * 50 + " 2. " + "b" * 50)
    assert verdict.rule == "enumeration" and verdict.detail == "2 enumerated goals"


def test_each_keyword_occurrence_counts() -> None:
    assert keyword_hits("优化优化") == ["优化", "优化"]
    assert keyword_hits("Refactored, migrating, optimisation, steps, And Then") == [
        "and then", "step", "refactor", "migrate", "optimize",
    ]
    assert keyword_hits("stepping also-ran") == ["also"]


def test_enumerated_items_seed_the_todo_list() -> None:
    assert enumerated_items("1. fix the bug; 2. add a test.") == ["fix the bug", "add a test"]
    assert enumerated_items("请完成：\n1、修复登录\n2、添加测试\n3、更新文档") == ["修复登录", "添加测试", "更新文档"]
    assert enumerated_items("- parse\n- print\n") == ["parse", "print"]
    assert enumerated_items("实现登录/注册/找回密码") == ["实现登录", "注册", "找回密码"]
    # Numbers out of sequence belong to an item's text.
    assert enumerated_items("1. bump to 3.11 2. rerun 5) all") == ["bump to 3.11", "rerun 5) all"]
    assert enumerated_items("nothing listed here") == []


def test_todo_init_needs_the_setting_a_complex_request_and_no_unfinished_todo() -> None:
    complex_request = is_complex("1. fix 2. test")
    simple_request = is_complex("hi")
    assert should_init_todos(complex_request, TodoList(), True)
    assert not should_init_todos(complex_request, TodoList(), False)
    assert not should_init_todos(simple_request, TodoList(), True)
    unfinished = TodoList([TodoItem("1", "x", "in_progress")])
    assert not should_init_todos(complex_request, unfinished, True)
    finished = TodoList([TodoItem("1", "x", "completed"), TodoItem("2", "y", "cancelled")])
    assert should_init_todos(complex_request, finished, True)


def test_todo_init_instruction_tells_the_model_to_call_todowrite_first() -> None:
    instruction = todo_init_instruction("1. fix the parser 2. add a regression test")
    assert "call `todowrite`" in instruction and "Before anything else" in instruction
    assert instruction.endswith("1. fix the parser\n2. add a regression test")
    plain = todo_init_instruction("Please read the README and tell me what this project does.")
    assert "call `todowrite`" in plain and "enumerates" not in plain
