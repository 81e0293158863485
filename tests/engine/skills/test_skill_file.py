"""SPEC 16: a skill is a folder holding SKILL.md, YAML front matter (name, description) then instructions; a broken
one is reported with a reason, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.skills.skill import SkillSource
from engine.skills.skill_file import MAX_SKILL_FILE_BYTES, SkillFormatError, parse_skill_text, read_skill


def _skill_folder(tmp_path: Path, text: str | bytes, name: str = "code-review") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    if isinstance(text, bytes):
        (folder / "SKILL.md").write_bytes(text)
    else:
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def test_skill_file_gives_name_description_and_body(tmp_path: Path) -> None:
    folder = _skill_folder(
        tmp_path,
        "---\nname: code-review\ndescription: >\n  Review a diff\n  for bugs.\nlicense: MIT\n---\n"
        "\n# Review\n\nLook.\n",
    )
    skill = read_skill(folder, SkillSource.PROJECT)
    assert (skill.name, skill.description) == ("code-review", "Review a diff for bugs.")
    assert skill.body == "# Review\n\nLook."
    assert skill.source is SkillSource.PROJECT and skill.folder == folder
    assert skill.file == folder / "SKILL.md"


def test_skill_file_accepts_a_bom_crlf_and_quoted_values(tmp_path: Path) -> None:
    text = '\ufeff---\r\nname: "code-review"\r\ndescription: "Skill: review code"\r\n---\r\nBody\r\n'
    skill = read_skill(_skill_folder(tmp_path, text), SkillSource.USER)
    assert skill.description == "Skill: review code"
    assert skill.body == "Body"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# Just markdown\n", "no YAML front matter: the file must start with a '---' line"),
        ("", "no YAML front matter"),
        ("---\nname: x\ndescription: y\n", "the front matter is never closed"),
        ("---\n---\nbody\n", "the front matter is empty: it needs 'name' and 'description'"),
        ("---\n- a\n- b\n---\nbody\n", "the front matter must be a mapping of keys to values, not a list"),
        ("---\nname: x\ndescription: Skill: review\n---\nbody\n",
         "invalid YAML front matter at line 3: mapping values are not allowed here (quote values that contain ': ')"),
        ("---\nname: [unclosed\ndescription: y\n---\nbody\n", "invalid YAML front matter"),
        ("---\ndescription: y\n---\nbody\n", "'name' is missing"),
        ("---\nname: code-review\n---\nbody\n", "'description' is missing"),
        ("---\nname: Code_Review\ndescription: y\n---\nbody\n",
         "'name' must be lowercase letters, digits and single hyphens (like 'code-review'), got 'Code_Review'"),
        ("---\nname: a--b\ndescription: y\n---\nbody\n", "'name' must be lowercase letters"),
        ("---\nname: 42\ndescription: y\n---\nbody\n", "'name' must be text, got int 42"),
        ("---\nname: code-review\ndescription: ''\n---\nbody\n", "'description': String should have at least 1"),
        ("---\nname: code-review\ndescription: " + "x" * 1025 + "\n---\nbody\n",
         "'description': String should have at most 1024"),
        ("---\nname: code-review\ndescription: y\n---\n\n  \n", "the body is empty"),
    ],
)
def test_skill_file_problems_say_why(text: str, reason: str) -> None:
    with pytest.raises(SkillFormatError) as caught:
        parse_skill_text(text)
    assert str(caught.value).startswith(reason)


def test_skill_name_must_match_its_folder(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path, "---\nname: review\ndescription: y\n---\nbody\n", name="code-review")
    with pytest.raises(SkillFormatError, match="name 'review' does not match its folder 'code-review'"):
        read_skill(folder, SkillSource.PROJECT)


def test_skill_file_that_is_not_utf8_is_a_problem(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path, b"---\nname: code-review\ndescription: caf\xe9\n---\nbody\n")
    with pytest.raises(SkillFormatError, match="not UTF-8 text"):
        read_skill(folder, SkillSource.PROJECT)


def test_skill_file_too_large_is_a_problem(tmp_path: Path) -> None:
    text = "---\nname: code-review\ndescription: y\n---\n" + "x" * MAX_SKILL_FILE_BYTES
    with pytest.raises(SkillFormatError, match=f"a skill is at most {MAX_SKILL_FILE_BYTES} bytes"):
        read_skill(_skill_folder(tmp_path, text), SkillSource.PROJECT)
